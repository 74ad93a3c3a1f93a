// Package fault holds the faults an experiment injects, one per file, each a
// small value with Name and Inject (and Heal when it can be undone), and the
// timeline that fires them at fixed offsets from the run's time zero.
package fault

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"sdchaos/clock"
)

// Fault is one injectable failure.
type Fault interface {
	// Name describes the fault for tables ("SIGKILL n1,n2,n3").
	Name() string
	// Inject starts the fault.
	Inject(ctx context.Context) error
}

// Healer is a Fault that can be undone.
type Healer interface {
	Fault
	// Heal ends the fault.
	Heal(ctx context.Context) error
}

// Step fires Fault at At after time zero and, if For > 0, heals it at At+For
// (the fault must then be a Healer).
type Step struct {
	At, For time.Duration
	Fault   Fault
}

// Timeline is the fault schedule of one run.
type Timeline []Step

// Validate checks that every healed step's fault can heal.
func (tl Timeline) Validate() error {
	for _, s := range tl {
		if _, ok := s.Fault.(Healer); s.For > 0 && !ok {
			return fmt.Errorf("fault %q cannot be healed but has a duration (%s)", s.Fault.Name(), s.For)
		}
		if s.At < 0 || s.For < 0 {
			return fmt.Errorf("fault %q at %s for %s: negative time", s.Fault.Name(), s.At, s.For)
		}
	}
	return nil
}

// Mark is called with the moment a fault was injected or healed and a label.
type Mark func(at time.Time, label string)

// Run fires every step on time (concurrently, so a slow heal does not delay
// another step) and returns the first error, wrapped with the step.
func (tl Timeline) Run(ctx context.Context, t0 time.Time, mark Mark) error {
	if err := tl.Validate(); err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, s := range tl {
		g.Go(func() error { return s.run(ctx, t0, mark) })
	}
	return g.Wait()
}

func (s Step) run(ctx context.Context, t0 time.Time, mark Mark) error {
	if err := clock.SleepUntil(ctx, t0.Add(s.At)); err != nil {
		return nil // the run ended first
	}
	at := time.Now()
	if err := s.Fault.Inject(ctx); err != nil {
		return fmt.Errorf("injecting %s: %w", s.Fault.Name(), err)
	}
	mark(at, s.Fault.Name())
	if s.For <= 0 {
		return nil
	}
	if err := clock.SleepUntil(ctx, t0.Add(s.At+s.For)); err != nil {
		return nil
	}
	at = time.Now()
	if err := s.Fault.(Healer).Heal(ctx); err != nil {
		return fmt.Errorf("healing %s: %w", s.Fault.Name(), err)
	}
	mark(at, "healed: "+s.Fault.Name())
	return nil
}
