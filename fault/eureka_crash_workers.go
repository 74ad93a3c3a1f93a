package fault

import (
	"context"
	"fmt"
	"strings"

	"sdchaos/eureka"
)

// CrashEurekaWorkers makes workers die at once: their ports refuse
// connections and they stop renewing, without cancelling their leases. It
// cannot be healed.
type CrashEurekaWorkers struct {
	Workers []*eureka.Worker
}

// Name returns "crash worker w03" or "crash 10 workers (w03,w07,…)".
func (c CrashEurekaWorkers) Name() string {
	ids := make([]string, len(c.Workers))
	for i, w := range c.Workers {
		ids[i] = w.ID
	}
	if len(ids) == 1 {
		return "crash worker " + ids[0]
	}
	return fmt.Sprintf("crash %d workers (%s)", len(ids), strings.Join(ids, ","))
}

// Inject crashes every worker.
func (c CrashEurekaWorkers) Inject(context.Context) error {
	for _, w := range c.Workers {
		w.Crash()
	}
	return nil
}
