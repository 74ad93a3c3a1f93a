package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
)

// Plan is an experiment on the etcd rig: traffic side by side (policy
// callers, real clients, a user's client, key-value traffic, traffic of the
// plan's own, a fleet living around the timeline), a fault and probe
// timeline built once the rig is up, an optional end set by a probe or by
// the fleet settling, and an optional last look. Every etcd scenario is a
// Plan that RunPlan runs; consecutive plans may share one recorder.
type Plan struct {
	Callers []caller.Config
	// Real are real clients (etcd's naming resolver + a gRPC balancer)
	// beside the policy callers; the instances then also serve gRPC.
	Real []caller.GRPCConfig
	// Exec, when set, is a user's client run as a program (--client exec:).
	Exec *rig.ExecConfig
	// KV, when set, adds key-value traffic against every member for the
	// linearizability check, and the reads of every key after it.
	KV *KVPlan
	// Traffic, if set, adds traffic of the plan's own once the rig is up;
	// release is called after the run.
	Traffic func(r *Etcd) (ts []caller.Traffic, release func(), err error)
	// Gateway makes the callers refresh through etcd's JSON gateway
	// (fail-fast) instead of gRPC.
	Gateway bool
	// Timeline builds the fault and probe timeline once the rig is up
	// (required). What it opens for its probes it releases with r.Defer.
	Timeline func(ctx context.Context, r *Etcd) (fault.Timeline, error)
	// EndAt, when set, ends the measured timeline at the end of the first
	// successful op of this caller (a probe that saw the world recover)
	// instead of at env.Duration.
	EndAt string
	// After, if set, runs once the traffic has ended, before the rig is
	// torn down, to record what only the rig knows (as ops).
	After func(ctx context.Context, r *Etcd, rec *history.Recorder) error
	// Fleet, if set, is traffic that lives around the timeline instead of
	// for env.Duration (a storm's registrants): RunPlan starts it once the
	// rig is up, before the timeline is built (its start is the plan's
	// ready check: the rig's is not recorded), and once the timeline has
	// run waits for it to settle, at most env.Duration; the measured
	// timeline ends then.
	Fleet Fleet
	// Recorder, if set, is the recorder the run records into instead of a
	// new one, so that consecutive plans (the storm's phases, each on a
	// fresh rig) share one timeline; the timeline's offsets are then from
	// its zero, and the history RunPlan returns holds all it recorded.
	Recorder *history.Recorder
}

// Fleet is traffic with a life of its own around a plan's timeline (the
// storm's registrants): started and brought to the state the timeline
// assumes once the rig is up, acted on by the timeline's faults, then
// waited for until it settles (every registrant back).
type Fleet interface {
	// Start starts the traffic on r and returns once it is steady.
	Start(ctx context.Context, r *Etcd) error
	// Settle returns once the traffic has settled or ctx has ended (what
	// was not back by then gives up), and records what it measured.
	Settle(ctx context.Context, rec *history.Recorder) error
	// Stop stops the traffic and releases what Start opened, also after a
	// Start that failed part way; the rig calls it at Close.
	Stop()
}

// KVPlan is the key-value traffic of a plan: every member through its own
// client (and proxy), op deadline Timeout, then every key read through
// every member within FinalWithin.
type KVPlan struct {
	Timeout, FinalWithin time.Duration
	// UntilTimeline stops the traffic once the timeline's last step has
	// run (a probe that waits for the world to recover), not at the run's
	// duration.
	UntilTimeline bool
}

// ErrNoTraffic is returned by Plan.Validate for a plan without any traffic.
var ErrNoTraffic = errors.New("the plan has no traffic (no callers, real clients, user's client, key-value or own traffic, fleet)")

// ErrRemotePlan is returned by RunPlan for a plan on another process's
// members (EtcdOptions.Remote) without a fleet, whose start is the ready
// check such a rig cannot make, or with key-value traffic, which needs the
// members' names.
var ErrRemotePlan = errors.New("a plan on another process's members (EtcdOptions.Remote) needs a fleet and has no key-value traffic")

// Validate reports a plan that cannot run: no timeline, or no traffic.
func (p Plan) Validate() error {
	switch {
	case p.Timeline == nil:
		return errors.New("the plan has no timeline")
	case len(p.Callers) == 0 && len(p.Real) == 0 && p.Exec == nil && p.KV == nil && p.Traffic == nil && p.Fleet == nil:
		return ErrNoTraffic
	}
	return nil
}

// RunPlan runs plan on the etcd world (Run with an PlanWorld): it starts
// the rig, primes the callers, starts the fleet, runs the traffic for
// env.Duration while the timeline fires (with a fleet: until the timeline
// has run and the fleet settled), and returns the recorded history.
func RunPlan(ctx context.Context, env *rig.Env, o EtcdOptions, plan Plan) (*history.History, error) {
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if len(o.Remote) > 0 && (plan.Fleet == nil || plan.KV != nil) {
		return nil, ErrRemotePlan
	}
	return rig.Run(ctx, env, &PlanWorld{env: env, Options: o, Plan: plan})
}

// PlanWorld is the etcd world behind the seam: a 3-member cluster (or an
// external one) with its instances, running one Plan.
type PlanWorld struct {
	env     *rig.Env
	Options EtcdOptions
	Plan    Plan
	// Rig is the started world (nil before Start).
	Rig *Etcd
	kv  *caller.KV
	rec *history.Recorder
}

// NewPlanWorld returns the etcd world that runs plan with o.
func NewPlanWorld(env *rig.Env, o EtcdOptions, plan Plan) *PlanWorld {
	return &PlanWorld{env: env, Options: o, Plan: plan}
}

// Describe says what the plan runs and for how long.
func (w *PlanWorld) Describe() string { return describeRun(w.Plan, w.env.Duration) }

// Start starts the cluster (or attaches to an external one), its proxies
// and its instances.
func (w *PlanWorld) Start(ctx context.Context) error {
	o := w.Options
	o.Service.GRPC = o.Service.GRPC || len(w.Plan.Real) > 0 || w.Plan.Exec != nil
	r, err := StartEtcd(ctx, w.env, o)
	if err != nil {
		return err
	}
	w.Rig = r
	return nil
}

// Traffic creates every traffic source of the plan and starts its fleet.
func (w *PlanWorld) Traffic(ctx context.Context) ([]caller.Traffic, error) {
	ts, kv, err := w.Rig.planTraffic(ctx, w.Plan)
	if err != nil {
		return nil, err
	}
	w.kv = kv
	if err := w.Rig.startFleet(ctx, w.Plan.Fleet); err != nil {
		return nil, err
	}
	return ts, nil
}

// Timeline builds the plan's timeline on the started rig.
func (w *PlanWorld) Timeline(ctx context.Context) (fault.Timeline, error) {
	return w.Plan.Timeline(ctx, w.Rig)
}

// Recorder returns the plan's recorder with the rig's ready check in it;
// the traffic runs for env.Duration.
func (w *PlanWorld) Recorder(ctx context.Context) (*history.Recorder, time.Duration) {
	w.rec = w.Rig.planRecorder(ctx, w.Plan)
	return w.rec, w.env.Duration
}

// TimelineDone stops the key-value traffic with the timeline when the plan
// says so.
func (w *PlanWorld) TimelineDone() {
	if w.kv != nil && w.Plan.KV.UntilTimeline {
		w.kv.Stop()
	}
}

// Finish reads every key after the heal, waits for the fleet to settle,
// runs the plan's last look, and ends the timeline where the plan's probe
// saw the world recover (or the fleet settled, or at env.Duration).
func (w *PlanWorld) Finish(ctx context.Context, rec *history.Recorder) (time.Duration, any, error) {
	if w.kv != nil {
		w.kv.ReadFinal(ctx, rec, w.Plan.KV.FinalWithin)
	}
	end, err := settleFleet(ctx, rec, w.Plan.Fleet, w.env.Duration)
	if err != nil {
		return 0, nil, err
	}
	if w.Plan.After != nil {
		if err := w.Plan.After(ctx, w.Rig, rec); err != nil {
			return 0, nil, fmt.Errorf("reading the final state: %w", err)
		}
	}
	if op, ok := history.FindOp(rec.History().Ops, w.Plan.EndAt); ok && w.Plan.EndAt != "" && op.Outcome == history.OK {
		end = op.End // the run ends once the probe saw the world recover
	}
	return end, nil, nil
}

// Close stops the rig.
func (w *PlanWorld) Close() {
	if w.Rig != nil {
		w.Rig.Close()
	}
}

// planRecorder returns the recorder the plan records into (its own, or a
// new one) with the rig's ready check in it, unless a fleet's start was
// the plan's ready check.
func (r *Etcd) planRecorder(ctx context.Context, plan Plan) *history.Recorder {
	ready := func(*history.Recorder) {}
	if plan.Fleet == nil {
		ready = r.CheckReady(ctx)
	}
	rec := plan.Recorder
	if rec == nil {
		rec = rig.NewRecorder(r.env, 0)
	}
	ready(rec)
	return rec
}

// startFleet starts the plan's fleet, if any; the rig stops it at Close.
func (r *Etcd) startFleet(ctx context.Context, f Fleet) error {
	if f == nil {
		return nil
	}
	r.Defer(f.Stop)
	if err := f.Start(ctx, r); err != nil {
		return fmt.Errorf("starting the fleet: %w", err)
	}
	return nil
}

// settleFleet waits, once the timeline has run, for the fleet to settle,
// at most d, and returns where the measured timeline ends: when the fleet
// settled, or at d for a plan without a fleet.
func settleFleet(ctx context.Context, rec *history.Recorder, f Fleet, d time.Duration) (time.Duration, error) {
	if f == nil {
		return d, nil
	}
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := f.Settle(sctx, rec); err != nil {
		return 0, fmt.Errorf("waiting for the fleet to settle: %w", err)
	}
	return rec.Offset(time.Now()), nil
}

// planTraffic creates every traffic source of plan; the rig releases them.
func (r *Etcd) planTraffic(ctx context.Context, plan Plan) ([]caller.Traffic, *caller.KV, error) {
	cs, closeCallers, err := r.NewCallers(ctx, plan.Callers, plan.Gateway)
	if err != nil {
		return nil, nil, fmt.Errorf("starting callers: %w", err)
	}
	r.Defer(closeCallers)
	real, closeReal, err := r.NewRealClients(ctx, plan.Real)
	if err != nil {
		return nil, nil, fmt.Errorf("starting real clients: %w", err)
	}
	r.Defer(closeReal)
	var ts []caller.Traffic
	for _, c := range cs {
		ts = append(ts, c)
	}
	for _, c := range real {
		ts = append(ts, c)
	}
	if plan.Exec != nil {
		ts = append(ts, r.NewExecClient(*plan.Exec))
	}
	if plan.Traffic != nil {
		extra, release, err := plan.Traffic(r)
		if err != nil {
			return nil, nil, fmt.Errorf("starting the plan's traffic: %w", err)
		}
		r.Defer(release)
		ts = append(ts, extra...)
	}
	if plan.KV == nil {
		return ts, nil, nil
	}
	kv, err := caller.NewKV(caller.DefaultKVConfig(caller.KVMembers(cluster.NodeNames(r.Cluster.Nodes()), r.Endpoints()), plan.KV.Timeout))
	if err != nil {
		return nil, nil, fmt.Errorf("starting the key-value traffic: %w", err)
	}
	r.Defer(kv.Close)
	return append(ts, kv), kv, nil
}

// describeRun says what traffic a plan runs and for how long, for the
// progress line.
func describeRun(p Plan, d time.Duration) string {
	if p.Fleet == nil {
		return fmt.Sprintf("%s for %s", describeTraffic(p), d)
	}
	return fmt.Sprintf("%s until the timeline has run and the fleet settled (at most %s after)", describeTraffic(p), d)
}

// describeTraffic says what traffic a plan runs, for the progress line.
func describeTraffic(p Plan) string {
	var parts []string
	if n := len(p.Callers); n > 0 {
		parts = append(parts, fmt.Sprintf("%d callers at %g req/s each", n, p.Callers[0].Rate))
	}
	if n := len(p.Real); n > 0 {
		parts = append(parts, fmt.Sprintf("%d real clients", n))
	}
	if p.Exec != nil {
		parts = append(parts, "your client")
	}
	if p.KV != nil {
		parts = append(parts, "key-value traffic on every member")
	}
	if p.Traffic != nil {
		parts = append(parts, "the plan's own traffic")
	}
	if p.Fleet != nil {
		parts = append(parts, "the plan's fleet")
	}
	return "traffic: " + strings.Join(parts, ", ")
}
