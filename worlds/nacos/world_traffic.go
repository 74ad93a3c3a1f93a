package nacos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
)

// gateLead is how long before the run's zero the callers' gates open: a JVM reads its gate
// within milliseconds (GATE_POLL_MILLIS) and then waits for its first due call.
const gateLead = 2 * time.Second

// Traffic launches every caller gated and waits until each is ready (at most JVMStart), then
// sets the run's zero (Settle after the server listed every instance, and gateLead from now
// with callers) and makes its recorder, opens the callers' gates, and returns the callers,
// the reading of the server's list and, with Probe, of the server process, each a
// caller.Traffic.
func (w *World) Traffic(ctx context.Context) ([]caller.Traffic, error) {
	w.ctx = ctx
	if err := w.readyCallers(ctx); err != nil {
		return nil, err
	}
	w.zero = w.listed.Add(w.spec.Settle)
	if z := time.Now().Add(gateLead); len(w.callers) > 0 && z.After(w.zero) {
		w.zero = z
	}
	w.rec = w.newRecorder()
	w.end = w.rec.Offset(w.zero) + w.spec.Duration
	w.sampler = &sampler{w: w}
	ts := []caller.Traffic{w.sampler}
	if w.cluster != nil {
		w.members = &memberSampler{w: w}
		ts = append(ts, w.members)
	}
	if w.spec.Probe > 0 {
		w.prober = &prober{w: w}
		ts = append(ts, w.prober)
	}
	end := w.zero.Add(w.spec.Duration)
	for _, c := range w.callers {
		if err := c.begin(w.rec, w.zero, end); err != nil {
			return nil, fmt.Errorf("starting caller %s: %w", c.name, err)
		}
		ts = append(ts, c)
	}
	return ts, nil
}

// readyCallers launches every caller gated and waits until each is ready, at most JVMStart
// from the first launch.
func (w *World) readyCallers(ctx context.Context) error {
	t0 := time.Now()
	for _, name := range w.spec.Callers {
		if _, err := w.prepareCaller(ctx, name); err != nil {
			return fmt.Errorf("starting caller %s: %w", name, err)
		}
	}
	for _, c := range w.callers {
		if err := c.waitReady(ctx, w.spec.JVMStart-time.Since(t0)); err != nil {
			return fmt.Errorf("starting caller %s: %w", c.name, err)
		}
	}
	if len(w.callers) > 0 {
		w.spec.Logf("%d callers ready %.1f s after their launch", len(w.callers), time.Since(t0).Seconds())
	}
	return nil
}

// newRecorder is the spec's recorder, or a new one, time zero the run's zero.
func (w *World) newRecorder() *history.Recorder {
	if w.spec.NewRecorder != nil {
		return w.spec.NewRecorder(w.zero, w.spec.Duration)
	}
	return history.NewRecorder(w.zero)
}

// Timeline builds the spec's timeline on the started world, its offsets moved from the run's
// zero to the recorder's.
func (w *World) Timeline(context.Context) (fault.Timeline, error) {
	tl, err := w.spec.Timeline(w)
	if err != nil {
		return nil, err
	}
	shift := w.rec.Offset(w.zero)
	for i := range tl {
		tl[i].At += shift
	}
	return tl, nil
}

// Recorder returns the run's recorder and how long the traffic runs from its time zero.
func (w *World) Recorder(context.Context) (*history.Recorder, time.Duration) { return w.rec, w.end }

// InstanceLinks returns the instances' links, in order (a fault's targets).
func (w *World) InstanceLinks() []fault.Link {
	out := make([]fault.Link, len(w.instances))
	for i, in := range w.instances {
		out[i] = in.link
	}
	return out
}

// CallerLinks returns the real clients' links, in order (a fault's targets).
func (w *World) CallerLinks() []fault.Link {
	out := make([]fault.Link, 0, len(w.callers))
	for _, c := range w.callers {
		out = append(out, c.link)
	}
	return out
}

// Links returns every client's link: the instances' then the callers' (a fault's targets).
func (w *World) Links() []fault.Link { return append(w.InstanceLinks(), w.CallerLinks()...) }

// Registrations returns the instances as a fault takes them out of the registry and puts
// them back.
func (w *World) Registrations() []fault.Registration {
	out := make([]fault.Registration, len(w.instances))
	for i, in := range w.instances {
		out[i] = in
	}
	return out
}

// Crashables returns the instances as a crash stops them (a fault's targets), in order.
func (w *World) Crashables() []fault.Crashable {
	out := make([]fault.Crashable, len(w.instances))
	for i, in := range w.instances {
		out[i] = in
	}
	return out
}

// Restartables returns the named callers as a restart kills and starts them again.
func (w *World) Restartables(names []string) ([]fault.Restartable, error) {
	var out []fault.Restartable
	for _, n := range names {
		c := w.caller(n)
		if c == nil {
			return nil, fmt.Errorf("restarting %q: not one of the run's callers %v", n, w.spec.Callers)
		}
		out = append(out, c)
	}
	return out, nil
}

func (w *World) caller(name string) *worldCaller {
	for _, c := range w.callers {
		if c.name == name {
			return c
		}
	}
	return nil
}

// sampler reads the server's list of the service every Sample while the run lasts (one
// reading at a time); a reading cut short by the run's end is not kept.
type sampler struct {
	w       *World
	mu      sync.Mutex
	samples []Sample
}

// Run reads until d after rec's zero or until ctx ends.
func (s *sampler) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	dctx, cancel := context.WithDeadline(ctx, rec.T0().Add(d))
	defer cancel()
	tick := time.NewTicker(s.w.spec.Sample)
	defer tick.Stop()
	for {
		smp := s.w.server.sample(dctx, s.w.spec.Service)
		if dctx.Err() != nil {
			return ctx.Err()
		}
		s.mu.Lock()
		s.samples = append(s.samples, smp)
		s.mu.Unlock()
		select {
		case <-dctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// all returns every reading, oldest first.
func (s *sampler) all() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...)
}

// prober reads the server's readiness, CPU time and RSS every Probe while the run lasts.
type prober struct {
	w      *World
	probes []Probe
}

// Run reads until d after rec's zero or until ctx ends.
func (p *prober) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	dctx, cancel := context.WithDeadline(ctx, rec.T0().Add(d))
	defer cancel()
	collect := p.w.server.probeLoop(dctx, p.w.spec.Probe)
	<-dctx.Done()
	p.probes = collect()
	return ctx.Err()
}
