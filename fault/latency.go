package fault

import (
	"context"
	"fmt"
	"time"

	"sdchaos/history"
	"sdchaos/linkproxy"
)

// Latency adds Delay to each direction of every client link to the registry.
type Latency struct {
	Proxies []*linkproxy.Proxy
	Delay   time.Duration
}

// Describe returns the delay event ("+200ms latency on client links to 3 etcd members").
func (l Latency) Describe() history.Event {
	return history.Event{Kind: history.DelayLinks, Targets: targets(l.Proxies),
		Label: fmt.Sprintf("+%s latency on client links to %d etcd members", l.Delay, len(l.Proxies))}
}

// Inject sets the delay on every proxy.
func (l Latency) Inject(context.Context) error {
	return EachProxy(l.Proxies, func(p *linkproxy.Proxy) error { p.Delay(l.Delay); return nil })
}

// Heal removes the delay.
func (l Latency) Heal(context.Context) error { return HealLinks(l.Proxies) }
