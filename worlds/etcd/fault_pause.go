package etcd

import (
	"context"

	"strings"

	"sdchaos/cluster"
	"sdchaos/history"
)

// PauseNodes freezes etcd members with SIGSTOP (the process keeps its
// sockets: connections hang instead of being refused); Heal sends SIGCONT.
type PauseNodes struct {
	Nodes []*cluster.Node
}

// Describe returns the pause-members event ("SIGSTOP etcd n1").
func (p PauseNodes) Describe() history.Event {
	return history.Event{Kind: history.PauseMembers, Targets: cluster.Names(p.Nodes), Label: cluster.ViaNemesis(p.Nodes, "SIGSTOP", "pause") + " etcd " + strings.Join(cluster.Names(p.Nodes), ",")}
}

// Inject freezes the members.
func (p PauseNodes) Inject(context.Context) error {
	for _, n := range p.Nodes {
		if err := n.Pause(); err != nil {
			return err
		}
	}
	return nil
}

// Heal resumes the members.
func (p PauseNodes) Heal(context.Context) error {
	for _, n := range p.Nodes {
		if err := n.Resume(); err != nil {
			return err
		}
	}
	return nil
}
