package cluster

import (
	"context"
	"fmt"
	"strings"

	"sdchaos/history"
)

// The fault values every world built on etcd makes on its members: the
// etcd world, DNS over etcd and the xDS control plane over etcd share them.

// KillMembers SIGKILLs etcd members; Heal restarts them on their data
// dirs, all at once, and waits until each serves.
type KillMembers struct {
	Nodes []*Node
}

// Describe returns the kill-members event on the members ("SIGKILL etcd
// n1,n2"; on attached members the nemesis action that stands for it).
func (k KillMembers) Describe() history.Event {
	return history.Event{Kind: history.KillMembers, Targets: Names(k.Nodes),
		Label: ViaNemesis(k.Nodes, "SIGKILL", "kill") + " etcd " + strings.Join(Names(k.Nodes), ",")}
}

// Inject kills the members (concurrently, so they die within microseconds
// of each other).
func (k KillMembers) Inject(context.Context) error { return KillAll(k.Nodes) }

// Heal restarts the killed members, all at once: a restarted member serves
// only once it has a quorum, so restarting them one after another waits
// for good on the first when a majority was killed (every member killed,
// the registry-unreachable kill).
func (k KillMembers) Heal(ctx context.Context) error { return RestartAll(ctx, k.Nodes) }

// PartitionPeer isolates one etcd member from the others (raft traffic
// only; clients still reach it) with etcd's CutPeer/MendPeer inside the
// member processes (see Isolate for the limits). OneWay cuts only the
// isolated member's side.
type PartitionPeer struct {
	Cluster *Cluster
	Node    *Node
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

// ViaNemesis returns what the fault does to members the harness started
// (embedded), or the nemesis action it runs on attached members (whose
// command may do something else than a signal: delete a pod, say).
func ViaNemesis(ns []*Node, embedded, action string) string {
	if len(ns) > 0 && ns[0].Attached() {
		return "nemesis " + action + ":"
	}
	return embedded
}

// MajorityWith returns a majority of the members that includes n (killed
// with the leader n, the survivors must elect: alone they cannot).
func (c *Cluster) MajorityWith(n *Node) []*Node {
	out := []*Node{n}
	for _, m := range c.Nodes() {
		if len(out) == c.Size()/2+1 {
			break
		}
		if m != n {
			out = append(out, m)
		}
	}
	return out
}

// LeaderOrFollower returns the leader (leader true) or the first member
// that is not the leader, once there is a leader.
func (c *Cluster) LeaderOrFollower(ctx context.Context, leader bool) (*Node, error) {
	l, err := c.WaitLeader(ctx)
	if err != nil || leader {
		return l, err
	}
	for _, m := range c.Nodes() {
		if m != l {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no member besides the leader %s", l.Name)
}
