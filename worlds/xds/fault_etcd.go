package xds

import (
	"context"
	"fmt"
	"strings"

	"sdchaos/cluster"
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

// killMembers SIGKILLs etcd members; Heal restarts them on their data
// dirs and waits until each answers on its client port.
type killMembers struct {
	Nodes []*cluster.Node
}

// Describe returns the kill-members event ("SIGKILL etcd n1,n2").
func (k killMembers) Describe() history.Event {
	names := cluster.Names(k.Nodes)
	return history.Event{Kind: history.KillMembers, Targets: names, Label: "SIGKILL etcd " + strings.Join(names, ",")}
}

// Inject kills the members, concurrently.
func (k killMembers) Inject(context.Context) error {
	return cluster.KillAll(k.Nodes)
}

// Heal restarts the killed members all at once: a restarted member serves
// its clients only once it has published itself through raft, which needs
// a quorum, so with every member killed one restarted alone would wait for
// the others for good.
func (k killMembers) Heal(ctx context.Context) error {
	return cluster.RestartAll(ctx, k.Nodes)
}
