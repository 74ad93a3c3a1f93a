package etcd

import (
	"context"

	"sdchaos/cluster"
	"sdchaos/history"
)

// PartitionPeer isolates one etcd member from the others (raft traffic
// only; clients still reach it) with etcd's CutPeer/MendPeer inside the
// member processes; see the cluster package for the limits. OneWay cuts only
// the isolated member's side.
type PartitionPeer struct {
	Cluster *cluster.Cluster
	Node    *cluster.Node
	OneWay  bool
}

// Describe returns the partition-member event on the isolated member
// ("partition n1 from its peers").
func (p PartitionPeer) Describe() history.Event {
	label := "partition " + p.Node.Name + " from its peers"
	if p.OneWay {
		label = "one-way partition " + p.Node.Name + " → peers"
	}
	if p.Node.Attached() {
		label = "nemesis isolate: " + label
	}
	return history.Event{Kind: history.PartitionMember, Targets: []string{p.Node.Name}, Label: label}
}

// Inject cuts the member off.
func (p PartitionPeer) Inject(context.Context) error { return p.Cluster.Isolate(p.Node, p.OneWay) }

// Heal reconnects it.
func (p PartitionPeer) Heal(context.Context) error { return p.Cluster.Rejoin(p.Node, p.OneWay) }
