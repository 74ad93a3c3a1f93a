package fault

import (
	"context"
	"fmt"
	"strings"

	"sdchaos/history"
)

// ServerProcess is one registry server process (a member of a Nacos cluster) that a fault
// kills and starts again on its own data.
type ServerProcess interface {
	// Name names the member ("nacos2").
	Name() string
	// Kill SIGKILLs the process and returns once it is reaped.
	Kill()
	// Start starts the process again on its data and ports and returns once it serves (its
	// own readiness), or the error that kept it from serving.
	Start(ctx context.Context) error
}

// KillServers SIGKILLs registry server processes; Heal starts each again on its data and
// returns once every one serves: a member restarted (after being down For). The event is
// KillMembers, as for etcd members; the heal event marks the relaunch, not the readiness.
type KillServers struct {
	Servers []ServerProcess
	// What names the registry in the label ("Nacos").
	What string
}

// Describe returns the kill-members event on the servers ("SIGKILL Nacos nacos2 (restarted at
// the heal)").
func (k KillServers) Describe() history.Event {
	names := make([]string, len(k.Servers))
	for i, s := range k.Servers {
		names[i] = s.Name()
	}
	return history.Event{Kind: history.KillMembers, Targets: names,
		Label: fmt.Sprintf("SIGKILL %s %s (started again at the heal)", k.What, strings.Join(names, ","))}
}

// Inject kills the servers at once.
func (k KillServers) Inject(context.Context) error {
	done := make(chan struct{}, len(k.Servers))
	for _, s := range k.Servers {
		go func() { s.Kill(); done <- struct{}{} }()
	}
	for range k.Servers {
		<-done
	}
	return nil
}

// Heal starts every server again, at once, and returns once each serves.
func (k KillServers) Heal(ctx context.Context) error {
	errs := make(chan error, len(k.Servers))
	for _, s := range k.Servers {
		go func() {
			if err := s.Start(ctx); err != nil {
				errs <- fmt.Errorf("starting %s again: %w", s.Name(), err)
				return
			}
			errs <- nil
		}()
	}
	var first error
	for range k.Servers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
