package fault

import (
	"context"
	"fmt"

	"sdchaos/history"
	"sdchaos/linkproxy"
)

// Reject refuses new client connections to the registry and resets the
// open ones (RST), like a registry whose port is closed.
type Reject struct {
	Proxies []*linkproxy.Proxy
}

// Describe returns the reject event ("reject client links to 3 etcd members").
func (r Reject) Describe() history.Event {
	return history.Event{Kind: history.RejectLinks, Targets: targets(r.Proxies),
		Label: fmt.Sprintf("reject client links to %d etcd members", len(r.Proxies))}
}

// Inject switches every proxy to reject.
func (r Reject) Inject(context.Context) error {
	return EachProxy(r.Proxies, (*linkproxy.Proxy).Reject)
}

// Heal accepts connections again.
func (r Reject) Heal(context.Context) error { return HealLinks(r.Proxies) }
