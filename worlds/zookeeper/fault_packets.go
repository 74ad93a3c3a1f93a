package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
)

// DropZooKeeperPackets drops a share (Loss) of the packets of one ZooKeeper
// member in the run's private network namespace, matched by port (every
// member, link and client is on 127.0.0.1 there, and go-zookeeper and
// ZooKeeper bind no source address): with Peers, the packets between it and
// its peers (its quorum and election ports, which its peers' links dial,
// and the ports of the links it dials: zookeeper.Ensemble.PeerPorts), so its
// clients still reach it; without, also its client port — the member is
// gone from the network as a SIGKILLed host would be, but its process
// lives. TCP retransmits what was lost.
type DropZooKeeperPackets struct {
	Filter *netns.Filter
	Member string
	// Ports are the ports the rules match, as source and as destination.
	Ports []int
	Peers bool
	Loss  float64
	fault.PacketRules
}

// Describe returns the packet-drop-peers event (Peers) or the
// packet-drop-member event on the member.
func (d *DropZooKeeperPackets) Describe() history.Event {
	if d.Peers {
		return history.Event{Kind: history.PacketDropPeers, Targets: []string{d.Member},
			Label: fmt.Sprintf("drop %s of packets between zookeeper %s and its peers (both ways)", fault.Percent(d.Loss), d.Member)}
	}
	return history.Event{Kind: history.PacketDropMember, Targets: []string{d.Member},
		Label: fmt.Sprintf("drop %s of every packet of zookeeper %s (both ways)", fault.Percent(d.Loss), d.Member)}
}

// Inject installs the rules.
func (d *DropZooKeeperPackets) Inject(context.Context) error {
	rules, err := d.Rules()
	if err != nil {
		return err
	}
	return d.Apply(d.Filter, d.Describe().Label, rules)
}

// Heal removes them; rules that saw no packet are an error (peers ping
// every half tick).
func (d *DropZooKeeperPackets) Heal(context.Context) error { return d.Remove(d.Describe().Label, true) }

// Rules returns two rules per port: packets to it, and packets from it.
func (d *DropZooKeeperPackets) Rules() ([]netns.Rule, error) {
	if len(d.Ports) == 0 {
		return nil, errors.New("no port to match (the ensemble was started without peer links)")
	}
	var rules []netns.Rule
	for _, p := range d.Ports {
		if p <= 0 || p > 65535 {
			return nil, fmt.Errorf("port %d out of range", p)
		}
		rules = append(rules, netns.Rule{Match: netns.Match{DstPort: uint16(p)}, Loss: d.Loss},
			netns.Rule{Match: netns.Match{SrcPort: uint16(p)}, Loss: d.Loss})
	}
	return rules, nil
}
