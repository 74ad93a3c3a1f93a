package eureka

import (
	"fmt"
	"strings"

	"sdchaos/linkproxy"
	"sdchaos/ports"
	"sdchaos/worlds/eureka/eurekareal"
)

// peerLink is one peer path of a real Eureka cluster through a loopback
// proxy: server from replicates to (and its embedded client fetches from)
// server to through it.
type peerLink struct {
	from, to string
	url      string
	proxy    *linkproxy.Proxy
}

// newPeerLink starts the proxy on the path from → to; the rig closes it.
func newPeerLink(r *Eureka, from string, to *eurekareal.Server) (peerLink, error) {
	port, err := r.alloc.Take("peer proxy eureka " + from + " → " + to.Name)
	if err != nil {
		return peerLink{}, err
	}
	p, err := linkproxy.New(ports.Addr(port), strings.TrimPrefix(to.URL, "http://"))
	if err != nil {
		return peerLink{}, fmt.Errorf("starting the peer proxy %s → %s: %w", from, to.Name, err)
	}
	r.Defer(func() { p.Close() })
	return peerLink{from: from, to: to.Name, url: "http://" + p.Addr() + "/eureka/", proxy: p}, nil
}

// peerLinksOf returns the proxies on every peer path from or to the
// server named name.
func peerLinksOf(links []peerLink, name string) []*linkproxy.Proxy {
	var out []*linkproxy.Proxy
	for _, l := range links {
		if l.from == name || l.to == name {
			out = append(out, l.proxy)
		}
	}
	return out
}
