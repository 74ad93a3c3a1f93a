package fault

import (
	"context"

	"sdchaos/eureka"
)

// KillEurekaServer SIGKILLs one Eureka server process (kill -9: its
// connections are refused at once). It cannot be healed.
type KillEurekaServer struct {
	Server *eureka.ServerProc
}

// Name returns "SIGKILL eureka s1".
func (k KillEurekaServer) Name() string { return "SIGKILL eureka " + k.Server.Name }

// Inject kills the server and waits until it is gone.
func (k KillEurekaServer) Inject(context.Context) error {
	k.Server.Kill()
	return nil
}
