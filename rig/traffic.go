package rig

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
)

// StartLead is how far in the future time zero is set once everything is
// ready, so the first sends are not late.
const StartLead = 100 * time.Millisecond

// SchedSlack is the allowance for timer and goroutine scheduling delays in
// bands derived from configured intervals.
const SchedSlack = 50 * time.Millisecond

// RunTraffic runs every traffic source for d from rec's time zero while the
// timeline fires, and waits for all of them.
func RunTraffic(ctx context.Context, rec *history.Recorder, ts []caller.Traffic, tl fault.Timeline, d time.Duration) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, t := range ts {
		g.Go(func() error { return t.Run(gctx, rec, d) })
	}
	g.Go(func() error { return tl.Run(gctx, rec) })
	return g.Wait()
}

// Plan is a traffic experiment on the etcd rig: callers side by side, a
// fault timeline built once the rig is up, and an optional last look.
type Plan struct {
	Callers []caller.Config
	// Real are real clients (etcd's naming resolver + a gRPC balancer)
	// beside the policy callers; the instances then also serve gRPC.
	Real []caller.GRPCConfig
	// Exec, when set, is a user's client run as a program (--client exec:).
	Exec *ExecConfig
	// Traffic, if set, adds traffic of the plan's own once the rig is up
	// (key-value traffic for the linearizability check); release is called
	// after the run.
	Traffic func(r *Etcd) (ts []caller.Traffic, release func(), err error)
	// Gateway makes the callers refresh through etcd's JSON gateway
	// (fail-fast) instead of gRPC.
	Gateway  bool
	Timeline func(r *Etcd) (fault.Timeline, error)
	// After, if set, runs once the traffic has ended, before the rig is
	// torn down, to record what only the rig knows (as ops).
	After func(ctx context.Context, r *Etcd, rec *history.Recorder) error
}

// RunPlan starts the rig, primes the callers, runs traffic for env.Duration
// while the timeline fires, and returns the recorded history.
func RunPlan(ctx context.Context, env *Env, o EtcdOptions, plan Plan) (*history.History, error) {
	o.Service.GRPC = o.Service.GRPC || len(plan.Real) > 0 || plan.Exec != nil
	r, err := StartEtcd(ctx, env, o)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cs, closeCallers, err := r.NewCallers(ctx, plan.Callers, plan.Gateway)
	if err != nil {
		return nil, fmt.Errorf("starting callers: %w", err)
	}
	defer closeCallers()
	real, closeReal, err := r.NewRealClients(ctx, plan.Real)
	if err != nil {
		return nil, fmt.Errorf("starting real clients: %w", err)
	}
	defer closeReal()
	tl, err := plan.Timeline(r)
	if err != nil {
		return nil, fmt.Errorf("building the fault timeline: %w", err)
	}
	ready := r.CheckReady(ctx)
	rec := NewRecorder(env, 0)
	ready(rec)
	env.Printf("traffic for %s at %g req/s per caller; timeline: %s", env.Duration, plan.Callers[0].Rate, tl.Describe())
	ts := make([]caller.Traffic, 0, len(cs)+len(real))
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
			return nil, fmt.Errorf("starting the plan's traffic: %w", err)
		}
		defer release()
		ts = append(ts, extra...)
	}
	if err := RunTraffic(ctx, rec, ts, tl, env.Duration); err != nil {
		return nil, fmt.Errorf("running traffic: %w", err)
	}
	if plan.After != nil {
		if err := plan.After(ctx, r, rec); err != nil {
			return nil, fmt.Errorf("reading the final state: %w", err)
		}
	}
	h := rec.History()
	h.Timeline = env.Duration
	return &h, nil
}

// Op runs f with a deadline of timeout and records it as an op of caller
// name against target: ok, fail, or unknown when the deadline passed. f
// returns a count (keys seen, seconds left) and what it read.
func Op(ctx context.Context, rec *history.Recorder, name, target string, timeout time.Duration,
	f func(ctx context.Context) (int, string, error)) history.Op {
	start := time.Now()
	c, cancel := context.WithTimeout(ctx, timeout)
	n, v, err := f(c)
	cancel()
	op := history.Op{Caller: name, Kind: history.OpProbe, Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(time.Now()),
		Target: target, Count: n, Value: v, Outcome: history.OK}
	if err != nil {
		op.Outcome, op.Err = caller.Classify(err), err.Error()
	}
	rec.Add(op)
	return op
}
