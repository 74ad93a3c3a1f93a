package xds

import (
	"context"
	"fmt"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/linkproxy"
)

// cutControlPlane blackholes the control plane's links to every etcd
// member (its loopback proxies hold every byte): the registry is
// unreachable for the control plane alone; the instances renew on their
// own links, and the clients keep their ADS streams.
type cutControlPlane struct {
	Proxies []*linkproxy.Proxy
}

// Describe returns the blackhole event on the members the links go to.
func (c cutControlPlane) Describe() history.Event {
	var targets []string
	for _, p := range c.Proxies {
		targets = append(targets, p.Target())
	}
	return history.Event{Kind: history.BlackholeLinks, Targets: targets,
		Label: fmt.Sprintf("blackhole the control plane's links to %d etcd members", len(c.Proxies))}
}

// Inject blackholes every proxy.
func (c cutControlPlane) Inject(context.Context) error {
	return fault.EachProxy(c.Proxies, (*linkproxy.Proxy).Blackhole)
}

// Heal lets bytes pass again.
func (c cutControlPlane) Heal(context.Context) error { return fault.HealLinks(c.Proxies) }
