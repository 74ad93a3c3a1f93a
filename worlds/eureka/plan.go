package eureka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/worlds/eureka/eurekamodel"
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
	Config  eurekamodel.Config
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

// RunEureka runs plan on the Eureka world (Run with an EurekaRun): it
// starts the clusters, runs the schedulers' tasks for the plan's duration
// while its timeline fires, and returns the recorded history with the
// plan's data.
func RunEureka(ctx context.Context, env *rig.Env, plan EurekaPlan) (*history.History, error) {
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if plan.Backend == nil {
		plan.Backend = ModelBackend{}
	}
	return rig.Run(ctx, env, &EurekaRun{env: env, Plan: plan})
}

// EurekaRun is the Eureka world behind the seam (the model or real Eureka,
// by the plan's back-end) running one EurekaPlan.
type EurekaRun struct {
	env  *rig.Env
	Plan EurekaPlan
	// World is the started world (nil before Start).
	World *EurekaWorld
	rig   *Eureka
	rec   *history.Recorder
	real  time.Duration
}

// Describe names the back-end and the plan's clusters.
func (e *EurekaRun) Describe() string {
	return fmt.Sprintf("Eureka (%s), %d cluster(s) of 3 servers, for %s of model time", e.Plan.Backend.Name(), len(e.Plan.Clusters), e.Plan.Duration)
}

// Start starts the plan's clusters, lets them settle and starts the
// schedulers.
func (e *EurekaRun) Start(ctx context.Context) error {
	r, err := NewEureka(e.env, e.Plan.Backend, e.Plan.Factor)
	if err != nil {
		return err
	}
	e.rig = r
	e.World, err = startWorld(ctx, r, e.Plan)
	return err
}

// Traffic is the schedulers' task loops, and on the model (whose bands
// allow each wake-up SchedSlack, ×the scale in model time) the wake probe
// of the harness and of every server process.
func (e *EurekaRun) Traffic(context.Context) ([]caller.Traffic, error) {
	ts := make([]caller.Traffic, len(e.World.Schedulers))
	for i, s := range e.World.Schedulers {
		ts[i] = s
	}
	if _, model := e.Plan.Backend.(ModelBackend); model {
		var p wakeProbe
		for _, c := range e.World.Clusters {
			for _, s := range c.Servers {
				if ws, ok := s.(wakeServer); ok {
					p.servers = append(p.servers, ws)
				}
			}
		}
		ts = append(ts, p)
	}
	return ts, nil
}

// Timeline makes the recorder (the model clock runs from its zero) and
// builds the plan's timeline; without tasks, a last probe step keeps the
// timeline running until the end, so the servers are read after the
// whole span.
func (e *EurekaRun) Timeline(context.Context) (fault.Timeline, error) {
	e.real = e.rig.Scale.Real(e.Plan.Duration)
	e.rec = rig.NewRecorder(e.env, e.real)
	e.World.Clock = NewModelClock(e.rig.Scale, e.rec)
	tl, err := e.Plan.Timeline(e.World)
	if err != nil {
		return nil, err
	}
	if e.rig.dispatchers == 0 {
		tl = append(tl, fault.Step{At: e.real, Probe: endOfObservation()})
	}
	return tl, nil
}

// Recorder returns the recorder Timeline made; the traffic runs for the
// plan's duration in real time.
func (e *EurekaRun) Recorder(context.Context) (*history.Recorder, time.Duration) {
	return e.rec, e.real
}

// Finish reports the JVMs' memory and collects the plan's data.
func (e *EurekaRun) Finish(context.Context, *history.Recorder) (time.Duration, any, error) {
	reportMemory(e.env, e.World)
	data, err := e.Plan.Collect(e.World)
	if err != nil {
		return 0, nil, fmt.Errorf("reading the servers: %w", err)
	}
	return e.real, data, nil
}

// Close stops what the rig runs in the harness.
func (e *EurekaRun) Close() {
	if e.rig != nil {
		e.rig.Close()
	}
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

// endOfObservation is the probe step that marks the end of the observation.
func endOfObservation() fault.ProbeFunc {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "end of the observation"},
		Func: func(context.Context, *history.Recorder) error { return nil }}
}

// ModelTimes makes every time in a server's history relative to the
// recorder's zero.
func (w *EurekaWorld) ModelTimes(servers []EurekaServer) (map[string]eurekamodel.History, error) {
	hs, err := Histories(servers)
	if err != nil {
		return nil, err
	}
	w.Clock.RelHistories(hs)
	return hs, nil
}
