package etcd

import (
	"context"
	"fmt"

	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
)

// ResetClientPackets answers a share (Loss) of the packets clients send to
// etcd members' client ports with a TCP reset: new connections are refused
// and open ones broken on their next packet, like a registry whose port is
// closed (Reject does the same at the proxies).
type ResetClientPackets struct {
	Filter *netns.Filter
	Nodes  []*cluster.Node
	Loss   float64
	fault.PacketRules
}

// Describe returns the packet-reset-clients event on the members
// ("reset 100 % of client packets to n1,n2,n3").
func (r *ResetClientPackets) Describe() history.Event {
	label := fmt.Sprintf("reset %s of client packets to %s", fault.Percent(r.Loss), joinNames(r.Nodes))
	return history.Event{Kind: history.PacketResetClients, Targets: cluster.Names(r.Nodes), Label: label}
}

// Inject installs the rules.
func (r *ResetClientPackets) Inject(context.Context) error {
	return r.Apply(r.Filter, r.Describe().Label, r.Rules())
}

// Heal removes them.
func (r *ResetClientPackets) Heal(context.Context) error { return r.Remove(r.Describe().Label, false) }

// Rules returns one reset rule per member, on packets to its client port.
func (r *ResetClientPackets) Rules() []netns.Rule {
	rules := make([]netns.Rule, len(r.Nodes))
	for i, n := range r.Nodes {
		rules[i] = netns.Rule{Match: netns.Match{Dst: n.Addr(), DstPort: uint16(n.ClientPort)}, Loss: r.Loss, Action: netns.Reset}
	}
	return rules
}
