package rig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/eureka"
	"sdchaos/fault"
	"sdchaos/history"
)

// EurekaPlan is an experiment on the Eureka world: its clusters, its
// schedulers, a timeline on the model clock, and what to read once it has
// run. Every Eureka scenario is an EurekaPlan that RunEureka runs, on the
// model or on real Eureka alike.
type EurekaPlan struct {
	// Backend runs the world (ModelBackend when nil).
	Backend EurekaBackend
	// Factor is how many model seconds pass per real second.
	Factor float64
	// Duration is the timeline's length (model time).
	Duration time.Duration
	// Clusters are started in order, then settle for 2 s of model time.
	Clusters []ClusterSpec
	// Schedulers starts the schedulers once the clusters are up.
	Schedulers func(ctx context.Context, w *EurekaWorld) ([]EurekaScheduler, error)
	// Timeline builds the fault and probe timeline (offsets in real time:
	// convert with w.Clock.Real).
	Timeline func(w *EurekaWorld) (fault.Timeline, error)
	// Collect returns the run's data once the timeline has run (stored as
	// the history's Data).
	Collect func(w *EurekaWorld) (any, error)
}

// ClusterSpec is one cluster of a plan.
type ClusterSpec struct {
	Label   string
	Config  eureka.Config
	Workers int
}

// EurekaWorld is what a plan's functions get: the rig, its clusters (in
// the plan's order), its schedulers and, once the recorder exists, the
// model clock relative to the recorder's zero.
type EurekaWorld struct {
	*Eureka
	Clusters   []*EurekaCluster
	Schedulers []EurekaScheduler
	Clock      ModelClock
}

// Validate reports a plan that cannot run.
func (p EurekaPlan) Validate() error {
	switch {
	case len(p.Clusters) == 0:
		return errors.New("the plan has no cluster")
	case p.Factor <= 0 || p.Duration <= 0:
		return fmt.Errorf("the plan's factor (%g) and duration (%s) must be positive", p.Factor, p.Duration)
	case p.Timeline == nil || p.Collect == nil:
		return errors.New("the plan has no timeline or nothing to collect")
	}
	return nil
}

// RunEureka starts the world, runs the schedulers' tasks for the plan's
// duration while its timeline fires, and returns the recorded history
// with the plan's data.
func RunEureka(ctx context.Context, env *Env, plan EurekaPlan) (*history.History, error) {
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if plan.Backend == nil {
		plan.Backend = ModelBackend{}
	}
	r, err := NewEureka(env, plan.Backend, plan.Factor)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	w, err := startWorld(ctx, r, plan)
	if err != nil {
		return nil, err
	}
	real := r.Scale.Real(plan.Duration)
	rec := NewRecorder(env, real)
	w.Clock = NewModelClock(r.Scale, rec)
	tl, err := plan.Timeline(w)
	if err != nil {
		return nil, fmt.Errorf("building the timeline: %w", err)
	}
	if err := runEurekaTimeline(ctx, rec, w.Schedulers, tl, real, r.dispatchers > 0); err != nil {
		return nil, err
	}
	reportMemory(env, w)
	data, err := plan.Collect(w)
	if err != nil {
		return nil, fmt.Errorf("reading the servers: %w", err)
	}
	h := rec.History()
	h.Timeline = real
	if err := h.SetData(data); err != nil {
		return nil, err
	}
	return &h, nil
}

// startWorld starts the plan's clusters, lets them settle and starts the
// schedulers.
func startWorld(ctx context.Context, r *Eureka, plan EurekaPlan) (*EurekaWorld, error) {
	w := &EurekaWorld{Eureka: r}
	for _, c := range plan.Clusters {
		cl, err := r.StartCluster(ctx, c.Label, c.Config, c.Workers)
		if err != nil {
			return nil, err
		}
		w.Clusters = append(w.Clusters, cl)
	}
	if err := r.Settle(ctx, 2*time.Second); err != nil {
		return nil, err
	}
	if plan.Schedulers == nil {
		return w, nil
	}
	var err error
	w.Schedulers, err = plan.Schedulers(ctx, w)
	return w, err
}

// runEurekaTimeline runs the schedulers for real while the timeline fires;
// without tasks, a last probe step keeps the timeline running until the
// end, so the servers are read after the whole span.
func runEurekaTimeline(ctx context.Context, rec *history.Recorder, ss []EurekaScheduler, tl fault.Timeline, real time.Duration, tasks bool) error {
	ts := make([]caller.Traffic, len(ss))
	for i, s := range ss {
		ts[i] = s
	}
	if !tasks {
		tl = append(tl, fault.Step{At: real, Probe: endOfObservation()})
	}
	if err := RunTraffic(ctx, rec, ts, tl, real); err != nil {
		return fmt.Errorf("running the timeline: %w", err)
	}
	return nil
}

// endOfObservation is the probe step that marks the end of the observation.
func endOfObservation() fault.ProbeFunc {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "end of the observation"},
		Func: func(context.Context, *history.Recorder) error { return nil }}
}

// ModelTimes makes every time in a server's history relative to the
// recorder's zero.
func (w *EurekaWorld) ModelTimes(servers []EurekaServer) (map[string]eureka.History, error) {
	hs, err := Histories(servers)
	if err != nil {
		return nil, err
	}
	w.Clock.RelHistories(hs)
	return hs, nil
}
