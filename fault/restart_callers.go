package fault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"sdchaos/history"
)

// Restartable is a caller process a restart kills and starts again.
type Restartable interface {
	// Name names the caller ("spring").
	Name() string
	// Kill ends the caller's process at once (a JVM SIGKILLed, an
	// in-process client stopped and closed) and returns once it is gone.
	Kill()
	// Restart starts the caller again, on its own disk cache, and returns
	// once its process is started (it may still be starting its client).
	Restart(ctx context.Context) error
}

// RestartCallers kills every caller at once, then starts each again: an
// application restarted (during an outage, say) on what it left on disk.
// It is a one-off action: the event's phase is Once, and its Err names
// each caller that could not be started again.
type RestartCallers struct {
	Callers []Restartable
}

// Describe returns the restart-callers event on the callers ("restart
// spring, plain (killed, started again on their disk caches)").
func (r RestartCallers) Describe() history.Event {
	names := make([]string, len(r.Callers))
	for i, c := range r.Callers {
		names[i] = c.Name()
	}
	return history.Event{Kind: history.RestartCallers, Phase: history.Once, Targets: names,
		Label: fmt.Sprintf("restart %s (killed, started again on their disk caches)", strings.Join(names, ", "))}
}

// Inject kills every caller at once, then starts them all again at once,
// and returns once each is started (or could not be).
func (r RestartCallers) Inject(ctx context.Context) error {
	each(r.Callers, func(c Restartable) error { c.Kill(); return nil })
	return each(r.Callers, func(c Restartable) error {
		if err := c.Restart(ctx); err != nil {
			return fmt.Errorf("%s: %w", c.Name(), err)
		}
		return nil
	})
}

// each runs f on every caller concurrently and joins the errors, in the
// callers' order.
func each(cs []Restartable, f func(Restartable) error) error {
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f(c) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}
