package dns

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Record is a SkyDNS record as the etcd plugin reads it (the JSON of
// plugin/etcd/msg/service.go's Service: host, port, priority, weight,
// text, ttl).
type Record struct {
	Host     string `json:"host"`
	Port     int    `json:"port,omitempty"`
	Priority int    `json:"priority,omitempty"`
	Weight   int    `json:"weight,omitempty"`
	Text     string `json:"text,omitempty"`
	TTL      uint32 `json:"ttl,omitempty"`
}

// NewRecord returns the record of an instance at host:port whose answers
// carry ttl (whole seconds).
func NewRecord(host string, port int, ttl time.Duration) Record {
	return Record{Host: host, Port: port, TTL: uint32(ttl / time.Second)}
}

// Value returns the record's JSON, the value of its etcd key.
func (r Record) Value() (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("encoding the record of %s:%d: %w", r.Host, r.Port, err)
	}
	return string(b), nil
}

// ServiceName returns the DNS name of service in zone ("api.skydns.local.").
func ServiceName(service, zone string) string { return service + "." + zone }

// RecordKey returns the etcd key of instance id of service in zone under
// the plugin's path prefix: the name's labels reversed
// (plugin/etcd/msg/path.go Path: j1.api.skydns.local under skydns is
// /skydns/local/skydns/api/j1).
func RecordKey(prefix, zone, service, id string) string {
	labels := strings.Split(strings.TrimSuffix(id+"."+ServiceName(service, zone), "."), ".")
	slices.Reverse(labels)
	return path.Join(append([]string{"/" + strings.Trim(prefix, "/")}, labels...)...)
}
