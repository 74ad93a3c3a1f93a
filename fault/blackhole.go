package fault

import (
	"context"
	"fmt"

	"sdchaos/history"
	"sdchaos/linkproxy"
)

// Blackhole holds back every byte on the client links (connections stay
// open, new ones are accepted but silent), like heavy packet loss between
// the clients and the registry.
type Blackhole struct {
	Proxies []*linkproxy.Proxy
}

// Describe returns the blackhole event on the proxies' targets
// ("blackhole client links to 3 etcd members").
func (b Blackhole) Describe() history.Event {
	return history.Event{Kind: history.BlackholeLinks, Targets: targets(b.Proxies),
		Label: fmt.Sprintf("blackhole client links to %d etcd members", len(b.Proxies))}
}

// Inject blackholes every proxy.
func (b Blackhole) Inject(context.Context) error {
	return EachProxy(b.Proxies, (*linkproxy.Proxy).Blackhole)
}

// Heal lets bytes pass again.
func (b Blackhole) Heal(context.Context) error { return HealLinks(b.Proxies) }
