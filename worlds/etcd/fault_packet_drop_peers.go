package etcd

import (
	"context"
	"fmt"
	"slices"

	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
)

// DropPeerPackets drops a share (Loss) of the packets between one etcd
// member and its peers — raft traffic on every connection between them,
// whoever dialled it — in both directions or one (Outbound: what the member
// sends; Inbound: what it receives). Clients still reach every member.
// Unlike PartitionPeer (etcd's own CutPeer switch), the packets are lost on
// the wire and TCP retransmits them.
type DropPeerPackets struct {
	Filter *netns.Filter
	// Members are every member of the cluster (Cluster.Nodes()), Node among them.
	Members []*cluster.Node
	Node    *cluster.Node
	Loss    float64
	Dir     fault.Direction
	fault.PacketRules
}

// Describe returns the packet-drop-peers event on the member
// ("drop 30 % of packets between n1 and its peers (both ways)").
func (d *DropPeerPackets) Describe() history.Event {
	label := fmt.Sprintf("drop %s of packets between %s and its peers (%s)", fault.Percent(d.Loss), d.Node.Name, d.Dir)
	return history.Event{Kind: history.PacketDropPeers, Targets: []string{d.Node.Name}, Label: label}
}

// Inject installs the rules.
func (d *DropPeerPackets) Inject(context.Context) error {
	rules, err := d.Rules()
	if err != nil {
		return err
	}
	return d.Apply(d.Filter, d.Describe().Label, rules)
}

// Heal removes them; rules that saw no packet are an error.
func (d *DropPeerPackets) Heal(context.Context) error { return d.Remove(d.Describe().Label, true) }

// Rules returns one rule per peer and direction, matching the two members'
// addresses (each member binds its peer connections to its own address).
func (d *DropPeerPackets) Rules() ([]netns.Rule, error) {
	if err := distinctAddrs(d.Members); err != nil {
		return nil, err
	}
	if !slices.Contains(d.Members, d.Node) {
		return nil, fmt.Errorf("etcd %s is not among the members %s", d.Node.Name, joinNames(d.Members))
	}
	var rules []netns.Rule
	for _, p := range d.Members {
		if p == d.Node {
			continue
		}
		if d.Dir.Has(fault.Outbound) {
			rules = append(rules, netns.Rule{Match: netns.Match{Src: d.Node.Addr(), Dst: p.Addr()}, Loss: d.Loss})
		}
		if d.Dir.Has(fault.Inbound) {
			rules = append(rules, netns.Rule{Match: netns.Match{Src: p.Addr(), Dst: d.Node.Addr()}, Loss: d.Loss})
		}
	}
	return rules, nil
}
