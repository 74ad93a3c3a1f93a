package dns

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	mdns "github.com/miekg/dns"

	"sdchaos/caller"
)

// StubSource lists a service's instances with one SRV query, taking each
// target's address from the answer's additional section, where the etcd
// plugin puts the A record of every target it names
// (plugin/backend_lookup.go:255-257). One query is one cache entry: a
// cache that serves the SRV answer stale serves the whole list, where
// GoResolver.List (SRV, then an A query per target: Go's LookupSRV drops
// the additional section) needs every target's A entry cached too.
type StubSource struct {
	// Server is the DNS server ("127.0.0.1:port"); Host the name (fully
	// qualified); Timeout bounds each query.
	Server, Host string
	Timeout      time.Duration
}

// List sends the SRV query and lists the instances sorted by id (the
// target's first label).
func (s StubSource) List(ctx context.Context) ([]caller.Endpoint, error) {
	q := new(mdns.Msg)
	q.SetQuestion(mdns.Fqdn(s.Host), mdns.TypeSRV)
	c, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	r, _, err := (&mdns.Client{Net: "udp", Timeout: time.Minute}).ExchangeContext(c, q, s.Server)
	if err != nil {
		return nil, fmt.Errorf("listing %s at %s: %w", s.Host, s.Server, err)
	}
	if r.Rcode != mdns.RcodeSuccess {
		return nil, fmt.Errorf("listing %s at %s: %s", s.Host, s.Server, Rcode(r.Rcode))
	}
	return endpointsOf(r)
}

// endpointsOf pairs the SRV records of r with their targets' addresses
// from its additional section.
func endpointsOf(r *mdns.Msg) ([]caller.Endpoint, error) {
	addrs := map[string]netip.Addr{}
	for _, rr := range r.Extra {
		if a, ok := rr.(*mdns.A); ok {
			if ip, ok := netip.AddrFromSlice(a.A.To4()); ok {
				addrs[strings.ToLower(a.Hdr.Name)] = ip
			}
		}
	}
	var out []caller.Endpoint
	for _, rr := range r.Answer {
		srv, ok := rr.(*mdns.SRV)
		if !ok {
			continue
		}
		ip, ok := addrs[strings.ToLower(srv.Target)]
		if !ok {
			return nil, fmt.Errorf("SRV target %s has no address in the additional section", srv.Target)
		}
		id, _, _ := strings.Cut(srv.Target, ".")
		out = append(out, caller.Endpoint{ID: id, Addr: net.JoinHostPort(ip.String(), strconv.Itoa(int(srv.Port)))})
	}
	slices.SortFunc(out, func(a, b caller.Endpoint) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
