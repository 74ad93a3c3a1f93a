package zookeeper

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/procstat"
	"sdchaos/rig"
)

// ZooKeeperPlan is an experiment on the ZooKeeper world: policy callers,
// real Java clients, traffic of the plan's own, a timeline of fault values
// built once the world is up, and what to keep once it has run.
type ZooKeeperPlan struct {
	// Callers are policy callers, each reading through a Go client.
	Callers []caller.Config
	// Java are the real Java clients; CallTimeout bounds their calls.
	Java        []JavaClient
	CallTimeout time.Duration
	// Traffic, if set, adds traffic of the plan's own once the world is up.
	Traffic func(ctx context.Context, z *ZooKeeper) ([]caller.Traffic, error)
	// Timeline builds the fault and probe timeline (required).
	Timeline func(ctx context.Context, z *ZooKeeper) (fault.Timeline, error)
	// Finish, if set, returns the data the history keeps once the traffic
	// has ended (the world's memory is in z.Memory by then).
	Finish func(ctx context.Context, z *ZooKeeper, rec *history.Recorder) (any, error)
}

// ZooKeeperWorld is the ZooKeeper world behind the seam: an ensemble (or an
// attached one) with its instances, running one ZooKeeperPlan.
type ZooKeeperWorld struct {
	env     *rig.Env
	Options ZooKeeperOptions
	Plan    ZooKeeperPlan
	// Z is the started world (nil before Start).
	Z    *ZooKeeper
	java []*javaCaller
}

// NewZooKeeperWorld returns the world that runs plan with o.
func NewZooKeeperWorld(env *rig.Env, o ZooKeeperOptions, plan ZooKeeperPlan) *ZooKeeperWorld {
	return &ZooKeeperWorld{env: env, Options: o, Plan: plan}
}

// Describe says what runs and for how long.
func (w *ZooKeeperWorld) Describe() string {
	var parts []string
	if n := len(w.Plan.Callers); n > 0 {
		parts = append(parts, fmt.Sprintf("%d policy callers", n))
	}
	for _, j := range w.Plan.Java {
		parts = append(parts, fmt.Sprintf("%s (%s)", j.Name, j.Mode))
	}
	if w.Plan.Traffic != nil {
		parts = append(parts, "the plan's own traffic")
	}
	what := "ZooKeeper"
	if w.Z != nil {
		what = w.Z.Describe()
	}
	return fmt.Sprintf("%s; traffic: %s for %s", what, strings.Join(parts, ", "), w.env.Duration)
}

// Start starts (or attaches to) the ensemble and registers the instances.
func (w *ZooKeeperWorld) Start(ctx context.Context) error {
	if w.Plan.Timeline == nil {
		return fmt.Errorf("the ZooKeeper plan has no timeline")
	}
	z, err := StartZooKeeper(ctx, w.env, w.Options)
	if err != nil {
		return err
	}
	w.Z = z
	return nil
}

// Traffic creates the policy callers, starts the Java clients (gated until
// time zero) and the plan's own traffic.
func (w *ZooKeeperWorld) Traffic(ctx context.Context) ([]caller.Traffic, error) {
	cs, err := w.Z.NewCallers(ctx, w.Plan.Callers)
	if err != nil {
		return nil, fmt.Errorf("starting callers: %w", err)
	}
	var ts []caller.Traffic
	for _, c := range cs {
		ts = append(ts, c)
	}
	java, err := w.Z.StartJavaClients(ctx, w.Plan.Java, w.Plan.CallTimeout)
	if err != nil {
		return nil, fmt.Errorf("starting the Java clients: %w", err)
	}
	for _, t := range java {
		w.java = append(w.java, t.(*javaCaller))
	}
	ts = append(ts, java...)
	if w.Plan.Traffic != nil {
		extra, err := w.Plan.Traffic(ctx, w.Z)
		if err != nil {
			return nil, fmt.Errorf("starting the plan's traffic: %w", err)
		}
		ts = append(ts, extra...)
	}
	return ts, nil
}

// Timeline builds the plan's timeline on the started world.
func (w *ZooKeeperWorld) Timeline(ctx context.Context) (fault.Timeline, error) {
	return w.Plan.Timeline(ctx, w.Z)
}

// Recorder checks the world is ready and returns the recorder with that
// check in it; the traffic runs for env.Duration.
func (w *ZooKeeperWorld) Recorder(ctx context.Context) (*history.Recorder, time.Duration) {
	ready := w.Z.CheckReady(ctx)
	rec := rig.NewRecorder(w.env, 0)
	ready(rec)
	return rec, w.env.Duration
}

// Finish reads the JVMs' memory and keeps the plan's data.
func (w *ZooKeeperWorld) Finish(ctx context.Context, rec *history.Recorder) (time.Duration, any, error) {
	w.Z.Memory = w.memory()
	w.env.Printf("%s", w.Z.Memory)
	if w.Plan.Finish == nil {
		return w.env.Duration, nil, nil
	}
	data, err := w.Plan.Finish(ctx, w.Z, rec)
	if err != nil {
		return 0, nil, fmt.Errorf("reading the ZooKeeper world's state: %w", err)
	}
	return w.env.Duration, data, nil
}

// Close releases the world.
func (w *ZooKeeperWorld) Close() {
	if w.Z != nil {
		w.Z.Close()
	}
}

// Memory is the resident memory of the world's JVMs and of the harness.
type Memory struct {
	// JVMs maps a member or a Java client to its RSS in MiB (members at the
	// end of the timeline; a killed one has none; clients the largest of
	// two samples while they called).
	JVMs map[string]int64 `json:"jvms_mib"`
	// HarnessPeak is this process's peak RSS in MiB (-1: unknown).
	HarnessPeak int64 `json:"harness_peak_mib"`
}

// String is the progress line.
func (m Memory) String() string {
	names := make([]string, 0, len(m.JVMs))
	var total int64
	for n, v := range m.JVMs {
		names = append(names, fmt.Sprintf("%s %d", n, v))
		total += v
	}
	sort.Strings(names)
	return fmt.Sprintf("memory (RSS, MiB): %s — %d JVMs, %d MiB in all; this harness process's peak %d MiB",
		strings.Join(names, ", "), len(m.JVMs), total, m.HarnessPeak)
}

// memory reads every live member's RSS and the Java clients' samples.
func (w *ZooKeeperWorld) memory() Memory {
	m := Memory{JVMs: map[string]int64{}, HarnessPeak: -1}
	for _, mb := range w.Z.Ensemble.Members() {
		if n, err := mb.RSS(); err == nil {
			m.JVMs[mb.Name] = n >> 20
		}
	}
	for _, j := range w.java {
		if n := j.RSS(); n > 0 {
			m.JVMs[j.name] = n >> 20
		}
	}
	if n, err := procstat.PeakRSS("self"); err == nil {
		m.HarnessPeak = n >> 20
	}
	return m
}
