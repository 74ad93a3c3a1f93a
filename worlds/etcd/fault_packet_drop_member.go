package etcd

import (
	"context"
	"fmt"

	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
)

// DropMemberPackets drops a share (Loss) of every packet to or from one etcd
// member — its peers' raft traffic and its clients alike — as if its
// network card lost them.
type DropMemberPackets struct {
	Filter *netns.Filter
	Node   *cluster.Node
	Loss   float64
	fault.PacketRules
}

// Describe returns the packet-drop-member event on the member
// ("drop 100 % of packets to and from n2").
func (d *DropMemberPackets) Describe() history.Event {
	label := fmt.Sprintf("drop %s of packets to and from %s", fault.Percent(d.Loss), d.Node.Name)
	return history.Event{Kind: history.PacketDropMember, Targets: []string{d.Node.Name}, Label: label}
}

// Inject installs the rules.
func (d *DropMemberPackets) Inject(context.Context) error {
	rules, err := d.Rules()
	if err != nil {
		return err
	}
	return d.Apply(d.Filter, d.Describe().Label, rules)
}

// Heal removes them; rules that saw no packet are an error.
func (d *DropMemberPackets) Heal(context.Context) error { return d.Remove(d.Describe().Label, true) }

// Rules returns two disjoint rules, so that each packet is drawn once: one
// on packets to the member's address, one on packets from it to any other.
func (d *DropMemberPackets) Rules() ([]netns.Rule, error) {
	if err := distinctAddrs([]*cluster.Node{d.Node}); err != nil {
		return nil, err
	}
	a := d.Node.Addr()
	return []netns.Rule{
		{Match: netns.Match{Dst: a}, Loss: d.Loss},
		{Match: netns.Match{Src: a, NotDst: a}, Loss: d.Loss},
	}, nil
}
