package eureka

import (
	"context"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/linkproxy"
)

// CutOffEurekaServer cuts one Eureka server off its peers: every proxy on
// the peer paths to and from it holds its bytes (replication, and the
// embedded client's fetches from its peers), while its clients still
// reach it through their own proxy. Heal lets the bytes pass again.
type CutOffEurekaServer struct {
	// Server names the server cut off.
	Server string
	// Links are the peer-path proxies from it and to it.
	Links []*linkproxy.Proxy
}

// Describe returns the partition event on the server ("cut eureka s2 off
// its peers").
func (c CutOffEurekaServer) Describe() history.Event {
	return history.Event{Kind: history.PartitionMember, Targets: []string{c.Server}, Label: "cut eureka " + c.Server + " off its peers"}
}

// Inject blackholes the peer paths.
func (c CutOffEurekaServer) Inject(context.Context) error {
	return fault.EachProxy(c.Links, (*linkproxy.Proxy).Blackhole)
}

// Heal lets bytes pass again.
func (c CutOffEurekaServer) Heal(context.Context) error { return fault.HealLinks(c.Links) }
