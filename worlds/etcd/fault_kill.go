package etcd

import (
	"context"
	"strings"

	"sdchaos/cluster"
	"sdchaos/history"
)

// KillNodes SIGKILLs etcd members; Heal restarts them on their data dirs,
// all at once, and waits until each serves.
type KillNodes struct {
	Nodes []*cluster.Node
}

// Describe returns the kill-members event on the members ("SIGKILL etcd n1,n2").
func (k KillNodes) Describe() history.Event {
	return history.Event{Kind: history.KillMembers, Targets: cluster.Names(k.Nodes), Label: viaNemesis(k.Nodes, "SIGKILL", "kill") + " etcd " + strings.Join(cluster.Names(k.Nodes), ",")}
}

// Inject kills the members (concurrently, so they die within microseconds of each other).
func (k KillNodes) Inject(context.Context) error {
	return cluster.KillAll(k.Nodes)
}

// Heal restarts the killed members, all at once: a restarted member
// serves only once it has a quorum, so restarting them one after another
// waits for good on the first when a majority was killed (every member
// killed, the registry-unreachable kill).
func (k KillNodes) Heal(ctx context.Context) error {
	return cluster.RestartAll(ctx, k.Nodes)
}

// viaNemesis returns what the fault does to members the harness started
// (embedded), or the nemesis action it runs on attached members (whose
// command may do something else than a signal: delete a pod, say).
func viaNemesis(ns []*cluster.Node, embedded, action string) string {
	if len(ns) > 0 && ns[0].Attached() {
		return "nemesis " + action + ":"
	}
	return embedded
}
