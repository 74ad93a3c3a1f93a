package eureka

import (
	"context"
	"fmt"
	"time"

	"sdchaos/history"
)

// EurekaClockStep steps one server's wall clock by Step (model time): lease
// timestamps and expiry checks use the new time, while the server's periodic
// tasks keep their monotonic cadence. A step is not undone.
type EurekaClockStep struct {
	Server ServerTarget
	Step   time.Duration
}

// Describe returns the step-eureka-clock event ("clock of eureka s1 steps 2m0s").
func (c EurekaClockStep) Describe() history.Event {
	return history.Event{Kind: EventStepClock, Targets: []string{c.Server.Name()},
		Label: fmt.Sprintf("clock of eureka %s steps %s", c.Server.Name(), c.Step)}
}

// Inject steps the clock.
func (c EurekaClockStep) Inject(context.Context) error { return c.Server.Step(c.Step) }
