package zookeeper

import (
	"context"
	"fmt"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/linkproxy"
)

// CutZooKeeperMember cuts one ZooKeeper member off from its peers while its
// clients still reach it: every peer link to and from it (quorum and
// election, zookeeper.Ensemble.PeerLinksOf) holds its bytes, as under total
// packet loss between it and the others. The election links rewrite a
// member's first message, so no peer dials back around them (initmsg.go).
type CutZooKeeperMember struct {
	Member string
	Links  []PeerLink
}

// Describe returns the partition-member event ("cut zookeeper zk3 off from its peers").
func (c CutZooKeeperMember) Describe() history.Event {
	return history.Event{Kind: history.PartitionMember, Targets: []string{c.Member}, Label: "cut zookeeper " + c.Member + " off from its peers"}
}

// Inject blackholes the member's peer links.
func (c CutZooKeeperMember) Inject(context.Context) error {
	if len(c.Links) == 0 {
		return fmt.Errorf("zookeeper %s has no peer link (the ensemble was started without peer links)", c.Member)
	}
	return fault.EachProxy(c.proxies(), (*linkproxy.Proxy).Blackhole)
}

// Heal lets the peer links pass again.
func (c CutZooKeeperMember) Heal(context.Context) error { return fault.HealLinks(c.proxies()) }

func (c CutZooKeeperMember) proxies() []*linkproxy.Proxy {
	var out []*linkproxy.Proxy
	for _, l := range c.Links {
		out = append(out, l.Proxies()...)
	}
	return out
}
