package eureka

import (
	"context"
	"fmt"
	"strings"

	"sdchaos/history"
)

// CrashEurekaWorkers makes workers die at once: their ports refuse
// connections and they stop renewing, without cancelling their leases. It
// cannot be healed.
type CrashEurekaWorkers struct {
	Workers []WorkerTarget
	// Cluster names the workers' cluster when the world has several (the
	// event's Cluster; its label says "of 'on'"); empty when it has one.
	Cluster string
}

// Describe returns the crash-eureka-workers event ("crash worker w03",
// "crash 10 workers (w03,w07,…)", "crash worker w03 of 'on'" in a world of
// several clusters).
func (c CrashEurekaWorkers) Describe() history.Event {
	ids := make([]string, len(c.Workers))
	for i, w := range c.Workers {
		ids[i] = w.ID()
	}
	label := fmt.Sprintf("crash %d workers (%s)", len(ids), strings.Join(ids, ","))
	if len(ids) == 1 {
		label = "crash worker " + ids[0]
	}
	if c.Cluster != "" {
		label += " of '" + c.Cluster + "'"
	}
	return history.Event{Kind: EventCrashWorkers, Targets: ids, Label: label, Cluster: c.Cluster}
}

// Inject crashes every worker.
func (c CrashEurekaWorkers) Inject(context.Context) error {
	for _, w := range c.Workers {
		w.Crash()
	}
	return nil
}
