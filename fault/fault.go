// Package fault holds the faults an experiment injects, one per file, each a
// small value with Describe and Inject (and Heal when it can be undone), and
// the timeline that fires them — and the run's probes — at fixed offsets
// from the run's time zero, recording each as a typed event.
package fault

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"sdchaos/clock"
	"sdchaos/history"
)

// Fault is one injectable failure.
type Fault interface {
	// Describe returns the event the fault records: its kind, targets and
	// label (the timeline sets the time and the phase).
	Describe() history.Event
	// Inject starts the fault.
	Inject(ctx context.Context) error
}

// Healer is a Fault that can be undone.
type Healer interface {
	Fault
	// Heal ends the fault.
	Heal(ctx context.Context) error
}

// Probe is a measurement the timeline runs at its time: it records its
// operations into the recorder (as ops) and returns an error only when the
// harness itself failed (an operation that fails is a result, not an error).
type Probe interface {
	// Describe returns the probe's event (kind history.Probe).
	Describe() history.Event
	// Run performs the probe.
	Run(ctx context.Context, rec *history.Recorder) error
}

// ProbeFunc is a Probe made of an event and a function.
type ProbeFunc struct {
	Event history.Event
	Func  func(ctx context.Context, rec *history.Recorder) error
}

// Describe returns p.Event.
func (p ProbeFunc) Describe() history.Event { return p.Event }

// Run calls p.Func.
func (p ProbeFunc) Run(ctx context.Context, rec *history.Recorder) error { return p.Func(ctx, rec) }

// Step fires Fault (or runs Probe) at At after time zero and, if For > 0,
// heals the fault at At+For (the fault must then be a Healer).
type Step struct {
	At, For time.Duration
	Fault   Fault
	Probe   Probe
	// Origin, when positive, is the 1-based index of the experiment step
	// (package experiment) this step was made from: the events it records
	// carry it, so a judge finds a step's events by it, not by their kind.
	Origin int
}

// Timeline is the fault and probe schedule of one run.
type Timeline []Step

// Validate checks that every step has exactly one of Fault and Probe, and
// that every healed step's fault can heal.
func (tl Timeline) Validate() error {
	for _, s := range tl {
		if (s.Fault == nil) == (s.Probe == nil) {
			return fmt.Errorf("step at %s: want exactly one of a fault and a probe", s.At)
		}
		label := s.label()
		if _, ok := s.Fault.(Healer); s.For > 0 && !ok {
			return fmt.Errorf("fault %q cannot be healed but has a duration (%s)", label, s.For)
		}
		if s.At < 0 || s.For < 0 {
			return fmt.Errorf("step %q at %s for %s: negative time", label, s.At, s.For)
		}
	}
	return nil
}

func (s Step) label() string {
	if s.Probe != nil {
		return s.Probe.Describe().Label
	}
	return s.Fault.Describe().Label
}

// Run fires every step on time (concurrently, so a slow heal does not delay
// another step) and records an event for each injection, heal and probe. A
// fault that fails to inject or heal is recorded with its error (the run
// is then invalid, not failed); a probe's error (the harness failed) ends
// the run and is returned, wrapped with the step. A fault whose heal time
// the run does not reach (the run was cancelled, or its step panicked) is
// healed anyway before Run returns. A step that panics ends the run with a
// *PanicError naming the step (see Guard).
func (tl Timeline) Run(ctx context.Context, rec *history.Recorder) error {
	if err := tl.Validate(); err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, s := range tl {
		g.Go(func() error { return Guard("timeline step "+s.label(), func() error { return s.run(ctx, rec) }) })
	}
	return g.Wait()
}

// healGrace bounds a heal that runs after the run was cancelled.
const healGrace = 5 * time.Second

func (s Step) run(ctx context.Context, rec *history.Recorder) error {
	if err := clock.SleepUntil(ctx, rec.T0().Add(s.At)); err != nil {
		return nil // the run ended first
	}
	if s.Probe != nil {
		rec.Event(time.Now(), s.stamp(with(s.Probe.Describe(), history.Once)))
		if err := s.Probe.Run(ctx, rec); err != nil {
			return fmt.Errorf("probe %s: %w", s.label(), err)
		}
		return nil
	}
	at := time.Now()
	if err := s.Fault.Inject(ctx); err != nil {
		// The fault did not take effect: the run goes on but cannot judge
		// (the faults gate makes it invalid).
		rec.Event(at, s.stamp(failed(with(s.Fault.Describe(), history.Inject), err)))
		return nil
	}
	rec.Event(at, s.stamp(with(s.Fault.Describe(), history.Inject)))
	if s.For <= 0 {
		Failpoint("timeline-injected")
		return nil
	}
	h := s.Fault.(Healer)
	healed := false
	defer func() {
		if !healed { // the run ended first (cancelled, or this step panicked): leave nothing in place
			hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healGrace)
			defer cancel()
			_ = h.Heal(hctx)
		}
	}()
	Failpoint("timeline-injected")
	if err := clock.SleepUntil(ctx, rec.T0().Add(s.At+s.For)); err != nil {
		return nil
	}
	healed, at = true, time.Now()
	if err := h.Heal(ctx); err != nil {
		rec.Event(at, s.stamp(failed(with(s.Fault.Describe(), history.Heal), err)))
		return nil
	}
	rec.Event(at, s.stamp(with(s.Fault.Describe(), history.Heal)))
	return nil
}

// stamp gives the event the step's origin.
func (s Step) stamp(e history.Event) history.Event {
	e.Origin = s.Origin
	return e
}

// failed marks an event whose fault did not take effect.
func failed(e history.Event, err error) history.Event {
	e.Err = err.Error()
	return e
}

// with sets the event's phase; a fault that describes itself as a one-off
// action (Phase Once: a caller restart) keeps it when injected.
func with(e history.Event, p history.Phase) history.Event {
	if e.Phase == history.Once && p == history.Inject {
		return e
	}
	e.Phase = p
	if p == history.Heal {
		e.Label = "healed: " + e.Label
	}
	return e
}

// describeSteps is how many steps Describe names; the rest are counted.
const describeSteps = 8

// Describe returns a one-line description of the timeline for progress
// output (its first steps, and how many more there are).
func (tl Timeline) Describe() string {
	out := ""
	for i, st := range tl {
		if i == describeSteps {
			return out + fmt.Sprintf(" and %d more steps", len(tl)-i)
		}
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s at %s", st.label(), st.At)
		if st.For > 0 {
			out += " for " + st.For.String()
		}
	}
	return out
}
