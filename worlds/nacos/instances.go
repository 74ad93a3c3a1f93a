package nacos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Group is the group every instance here registers in (Nacos's default).
const Group = "DEFAULT_GROUP"

// Instance is one instance as the server lists it.
type Instance struct {
	IP        string  `json:"ip"`        // the address it registered
	Port      int     `json:"port"`      // its port
	Healthy   bool    `json:"healthy"`   // the server's health flag
	Enabled   bool    `json:"enabled"`   // false: listed but not to be called
	Ephemeral bool    `json:"ephemeral"` // lives with its client's connection
	Weight    float64 `json:"weight"`    // relative share of the calls
}

// Instances returns what the server holds for service (group DEFAULT_GROUP, every cluster),
// from its admin API (GET /nacos/v3/admin/ns/instance/list; 2 s timeout). A service or
// cluster the server does not know (never registered, or its last instance gone) is an empty
// list, as Nacos answers it: code 30000 with "… is not found!" in data.
func (s *Server) Instances(ctx context.Context, service string) ([]Instance, error) {
	q := url.Values{"serviceName": {service}, "groupName": {Group}}
	var r result[json.RawMessage]
	u := "http://" + s.Addr() + "/nacos/v3/admin/ns/instance/list?" + q.Encode()
	if err := getJSON(ctx, u, 2*time.Second, &r); err != nil {
		return nil, fmt.Errorf("listing %s on %s: %w", service, s.name, err)
	}
	if r.Code != 0 {
		var reason string
		_ = json.Unmarshal(r.Data, &reason)
		if strings.HasSuffix(reason, "is not found!") {
			return nil, nil
		}
		return nil, fmt.Errorf("listing %s on %s: code %d %s: %s", service, s.name, r.Code, r.Message, reason)
	}
	var list []Instance
	if err := json.Unmarshal(r.Data, &list); err != nil {
		return nil, fmt.Errorf("listing %s on %s: %w", service, s.name, err)
	}
	return list, nil
}
