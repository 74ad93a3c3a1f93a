package fault

import (
	"context"

	"sdchaos/cluster"
)

// PauseNodes freezes etcd members with SIGSTOP (the process keeps its
// sockets: connections hang instead of being refused); Heal sends SIGCONT.
type PauseNodes struct {
	Nodes []*cluster.Node
}

// Name returns "SIGSTOP etcd n1".
func (p PauseNodes) Name() string { return "SIGSTOP etcd " + nodeNames(p.Nodes) }

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
