package eureka

import (
	"context"
	"errors"
	"strings"
	"sync"

	"sdchaos/history"
)

// RestartableEurekaServer is a Eureka server process that can be killed
// and started again on its port (a real server keeps nothing on disk: it
// comes back empty).
type RestartableEurekaServer interface {
	// Name labels the server in events ("s1").
	Name() string
	// Kill SIGKILLs the process and waits until it is gone.
	Kill()
	// Restart starts it again and waits until it serves.
	Restart(ctx context.Context) error
}

// KillEurekaServers SIGKILLs Eureka servers at once (all of them: the
// registry is unreachable; a majority: what the survivor serves); Heal
// starts them again on their ports and waits until each serves.
type KillEurekaServers struct {
	Servers []RestartableEurekaServer
}

// Describe returns the kill event on the servers ("SIGKILL eureka s1,s2").
func (k KillEurekaServers) Describe() history.Event {
	names := make([]string, len(k.Servers))
	for i, s := range k.Servers {
		names[i] = s.Name()
	}
	return history.Event{Kind: EventKillServer, Targets: names, Label: "SIGKILL eureka " + strings.Join(names, ",")}
}

// Inject kills the servers concurrently, so they die within moments of
// each other.
func (k KillEurekaServers) Inject(context.Context) error {
	var wg sync.WaitGroup
	for _, s := range k.Servers {
		wg.Go(s.Kill)
	}
	wg.Wait()
	return nil
}

// Heal restarts the servers concurrently and waits until each serves.
func (k KillEurekaServers) Heal(ctx context.Context) error {
	errs := make([]error, len(k.Servers))
	var wg sync.WaitGroup
	for i, s := range k.Servers {
		wg.Go(func() { errs[i] = s.Restart(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
