package fault

import (
	"context"
	"fmt"

	"sdchaos/linkproxy"
)

// Blackhole holds back every byte on the client links (connections stay
// open, new ones are accepted but silent), like heavy packet loss between
// the clients and the registry.
type Blackhole struct {
	Proxies []*linkproxy.Proxy
}

// Name returns "blackhole client links to N etcd members".
func (b Blackhole) Name() string {
	return fmt.Sprintf("blackhole client links to %d etcd members", len(b.Proxies))
}

// Inject blackholes every proxy.
func (b Blackhole) Inject(context.Context) error {
	return eachProxy(b.Proxies, (*linkproxy.Proxy).Blackhole)
}

// Heal lets bytes pass again.
func (b Blackhole) Heal(context.Context) error { return healLinks(b.Proxies) }
