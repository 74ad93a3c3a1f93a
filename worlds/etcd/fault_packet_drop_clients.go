package etcd

import (
	"context"
	"fmt"
	"net/netip"

	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
)

// DropClientPackets drops a share (Loss) of the packets between clients and
// etcd members' client ports — requests (Inbound), answers (Outbound) or
// both — like a lossy network card in front of the registry. Raft traffic
// between the members is untouched.
type DropClientPackets struct {
	Filter *netns.Filter
	Nodes  []*cluster.Node
	Loss   float64
	Dir    fault.Direction
	// Client, when valid, limits the drop to the clients that dial from
	// this address (the harness's own probes, from another, still pass).
	Client netip.Addr
	fault.PacketRules
}

// Describe returns the packet-drop-clients event on the members
// ("drop 30 % of client packets to and from n1,n2,n3 (both ways)").
func (d *DropClientPackets) Describe() history.Event {
	label := fmt.Sprintf("drop %s of client packets to and from %s (%s)", fault.Percent(d.Loss), joinNames(d.Nodes), d.Dir)
	if d.Client.IsValid() {
		label = fmt.Sprintf("drop %s of the packets between the clients on %s and %s (%s)", fault.Percent(d.Loss), d.Client, joinNames(d.Nodes), d.Dir)
	}
	return history.Event{Kind: history.PacketDropClients, Targets: cluster.Names(d.Nodes), Label: label}
}

// Inject installs the rules.
func (d *DropClientPackets) Inject(context.Context) error {
	return d.Apply(d.Filter, d.Describe().Label, d.Rules())
}

// Heal removes them (no client traffic during the fault is not an error).
func (d *DropClientPackets) Heal(context.Context) error { return d.Remove(d.Describe().Label, false) }

// Rules returns, per member, a rule on packets to its client port and one
// on packets from it.
func (d *DropClientPackets) Rules() []netns.Rule {
	var rules []netns.Rule
	for _, n := range d.Nodes {
		port := uint16(n.ClientPort)
		if d.Dir.Has(fault.Inbound) {
			rules = append(rules, netns.Rule{Match: netns.Match{Src: d.Client, Dst: n.Addr(), DstPort: port}, Loss: d.Loss})
		}
		if d.Dir.Has(fault.Outbound) {
			rules = append(rules, netns.Rule{Match: netns.Match{Src: n.Addr(), SrcPort: port, Dst: d.Client}, Loss: d.Loss})
		}
	}
	return rules
}
