package dns

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"sdchaos/caller"
)

// List makes Go's resolver a caller.Source: it looks up the SRV records
// of the name (the resolver must be of TypeSRV), then each target's A
// record, and lists the instances sorted by id, the target's first label
// (the etcd plugin names an IP host's target after its key,
// plugin/backend_lookup.go:248 serv.Host = msg.Domain(serv.Key):
// j1.api.skydns.local.). ctx bounds
// the whole refresh; each lookup also has the resolver's Timeout. Each
// target's A record is a query and a cache entry of its own: when the
// registry behind a serve_stale cache is gone, a target the cache has not
// answered before fails the list (StubSource reads them from the SRV
// answer instead).
func (g *GoResolver) List(ctx context.Context) ([]caller.Endpoint, error) {
	if g.cfg.QType != TypeSRV {
		return nil, fmt.Errorf("listing %s: the resolver asks %s, not SRV", g.cfg.Host, g.cfg.QType)
	}
	c, cancel := context.WithTimeout(ctx, g.cfg.Timeout)
	defer cancel()
	_, srvs, err := g.r.LookupSRV(c, "", "", g.cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("listing %s: SRV: %w", g.cfg.Host, err)
	}
	out := make([]caller.Endpoint, 0, len(srvs))
	for _, s := range srvs {
		ips, err := g.r.LookupNetIP(c, "ip4", s.Target)
		if err != nil || len(ips) == 0 {
			return nil, fmt.Errorf("listing %s: A of target %s: %w", g.cfg.Host, s.Target, err)
		}
		id, _, _ := strings.Cut(s.Target, ".")
		out = append(out, caller.Endpoint{ID: id, Addr: net.JoinHostPort(ips[0].String(), strconv.Itoa(int(s.Port)))})
	}
	slices.SortFunc(out, func(a, b caller.Endpoint) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
