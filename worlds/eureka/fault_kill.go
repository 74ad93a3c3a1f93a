package eureka

import (
	"context"

	"sdchaos/history"
)

// KillEurekaServer SIGKILLs one Eureka server process (kill -9: its
// connections are refused at once). It cannot be healed.
type KillEurekaServer struct {
	Server ServerTarget
}

// Describe returns the kill-eureka-server event ("SIGKILL eureka s1").
func (k KillEurekaServer) Describe() history.Event {
	return history.Event{Kind: EventKillServer, Targets: []string{k.Server.Name()}, Label: "SIGKILL eureka " + k.Server.Name()}
}

// Inject kills the server and waits until it is gone.
func (k KillEurekaServer) Inject(context.Context) error {
	k.Server.Kill()
	return nil
}
