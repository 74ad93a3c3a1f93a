package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"sdchaos/history"
)

// KillZooKeeper SIGKILLs ZooKeeper members (concurrently) and waits until
// each is reaped; Heal starts them again on their zoo.cfg and data dir (they
// rejoin on their own: the heal does not wait for the quorum).
type KillZooKeeper struct {
	Members []*Member
}

// Describe returns the kill-members event on the members ("SIGKILL zookeeper zk3,zk1").
func (k KillZooKeeper) Describe() history.Event {
	names := zkNames(k.Members)
	return history.Event{Kind: history.KillMembers, Targets: names, Label: "SIGKILL zookeeper " + strings.Join(names, ",")}
}

// Inject kills the members.
func (k KillZooKeeper) Inject(context.Context) error {
	errs := make(chan error, len(k.Members))
	for _, m := range k.Members {
		go func() { errs <- m.Kill() }()
	}
	var all []error
	for range k.Members {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// Heal starts the killed members again.
func (k KillZooKeeper) Heal(context.Context) error {
	for _, m := range k.Members {
		if err := m.Restart(); err != nil {
			return fmt.Errorf("restarting %s: %w", m.Name, err)
		}
	}
	return nil
}

// zkNames returns the members' names.
func zkNames(ms []*Member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}
