package dns

import (
	"fmt"
	"strings"
	"time"

	"sdchaos/ports"
)

// Plugins are the CoreDNS plugins the server process is built with, in
// CoreDNS's execution order (core/dnsserver/zdirectives.go). bind keeps
// every listener on 127.0.0.1; the others are the world's.
var Plugins = []string{"bind", "errors", "cache", "etcd", "forward"}

// Corefile returns the server's Corefile for port on 127.0.0.1.
func (c ServerConfig) Corefile(port int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d {\n\tbind %s\n\terrors\n", c.Zone, port, ports.Host)
	if c.Cache != nil {
		c.Cache.write(&b, c.Zone)
	}
	if c.Etcd != nil {
		c.Etcd.write(&b, c.Zone)
	} else {
		fmt.Fprintf(&b, "\tforward %s %s\n", c.Zone, c.Forward)
	}
	b.WriteString("}\n")
	return b.String()
}

func (k Cache) write(b *strings.Builder, zone string) {
	ttl := ""
	if k.MaxTTL > 0 {
		ttl = fmt.Sprintf(" %d", int(k.MaxTTL/time.Second))
	}
	if k.ServeStale == nil && k.ServFail == nil {
		fmt.Fprintf(b, "\tcache%s %s\n", ttl, zone)
		return
	}
	fmt.Fprintf(b, "\tcache%s %s {\n", ttl, zone)
	if s := k.ServeStale; s != nil {
		mode := s.Mode
		if mode == "" {
			mode = StaleImmediate
		}
		upTo := s.For
		if upTo == 0 {
			upTo = DefaultStaleFor
		}
		fmt.Fprintf(b, "\t\tserve_stale %s %s\n", upTo, mode)
	}
	if k.ServFail != nil {
		fmt.Fprintf(b, "\t\tservfail %s\n", *k.ServFail)
	}
	b.WriteString("\t}\n")
}

func (e Backend) write(b *strings.Builder, zone string) {
	path := e.Path
	if path == "" {
		path = DefaultPath
	}
	fmt.Fprintf(b, "\tetcd %s {\n\t\tpath /%s\n\t\tendpoint %s\n", zone, strings.TrimPrefix(path, "/"), strings.Join(e.Endpoints, " "))
	if e.MinLeaseTTL > 0 {
		fmt.Fprintf(b, "\t\tmin-lease-ttl %d\n", int(e.MinLeaseTTL/time.Second))
	}
	b.WriteString("\t}\n")
}
