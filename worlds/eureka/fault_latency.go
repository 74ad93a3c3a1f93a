package eureka

import (
	"context"
	"fmt"
	"strings"
	"time"

	"sdchaos/history"
)

// EurekaLatency adds Delay (model time) before every request the servers
// handle — clients' and peers' alike, as netem on the server would. It is a
// server-side switch (a control command) rather than a TCP proxy. Heal
// removes it.
type EurekaLatency struct {
	Servers []ServerTarget
	Delay   time.Duration
}

// Describe returns the delay-eureka-servers event ("+200ms latency on eureka s2,s3").
func (l EurekaLatency) Describe() history.Event {
	names := make([]string, len(l.Servers))
	for i, s := range l.Servers {
		names[i] = s.Name()
	}
	return history.Event{Kind: EventDelayServers, Targets: names,
		Label: fmt.Sprintf("+%s latency on eureka %s", l.Delay, strings.Join(names, ","))}
}

// Inject sets the delay on every server.
func (l EurekaLatency) Inject(context.Context) error { return l.set(l.Delay) }

// Heal removes the delay.
func (l EurekaLatency) Heal(context.Context) error { return l.set(0) }

func (l EurekaLatency) set(d time.Duration) error {
	for _, s := range l.Servers {
		if err := s.Delay(d); err != nil {
			return fmt.Errorf("setting latency on %s: %w", s.Name(), err)
		}
	}
	return nil
}
