package cluster

import (
	"context"
	"fmt"
)

// KillAll SIGKILLs every node at once (they die within microseconds of
// each other) and fails when one still runs after its kill.
func KillAll(ns []*Node) error {
	errs := make(chan error, len(ns))
	for _, n := range ns {
		go func() { errs <- n.Kill() }()
	}
	for range ns {
		if err := <-errs; err != nil {
			return fmt.Errorf("killing etcd: %w", err)
		}
	}
	for _, n := range ns {
		if n.Running() {
			return fmt.Errorf("etcd %s is still running after SIGKILL", n.Name)
		}
	}
	return nil
}

// RestartAll restarts every node at once and waits until each serves: a
// restarted member serves only once it has published itself through raft,
// which needs a quorum, so restarting a killed majority one member after
// another would wait for good on the first. It returns the first error.
func RestartAll(ctx context.Context, ns []*Node) error {
	errs := make(chan error, len(ns))
	for _, n := range ns {
		go func() {
			if err := n.Restart(ctx); err != nil {
				errs <- fmt.Errorf("restarting etcd %s: %w", n.Name, err)
				return
			}
			errs <- nil
		}()
	}
	var first error
	for range ns {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Names lists the nodes' names.
func Names(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}
