package rig

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/fault"
	"sdchaos/history"
)

// StartLead is how far in the future time zero is set once everything is
// ready, so the first sends are not late.
const StartLead = 100 * time.Millisecond

// SchedSlack is the allowance for timer and goroutine scheduling delays in
// bands derived from configured intervals (clock.SchedSlack).
const SchedSlack = clock.SchedSlack

// RunTraffic runs every traffic source for d from rec's time zero while the
// timeline fires, and waits for all of them. A source that panics ends the
// run with a *fault.PanicError (the others are cancelled, the timeline's
// faults healed), as a timeline step that panics does.
func RunTraffic(ctx context.Context, rec *history.Recorder, ts []caller.Traffic, tl fault.Timeline, d time.Duration) error {
	return runTraffic(ctx, rec, ts, tl, d, func() {})
}

// runTraffic is RunTraffic that calls then once the timeline has run.
func runTraffic(ctx context.Context, rec *history.Recorder, ts []caller.Traffic, tl fault.Timeline, d time.Duration, then func()) error {
	g, gctx := errgroup.WithContext(ctx)
	for i, t := range ts {
		g.Go(func() error {
			return fault.Guard(fmt.Sprintf("traffic source %d (%T)", i, t), func() error {
				fault.Failpoint("traffic")
				return t.Run(gctx, rec, d)
			})
		})
	}
	g.Go(func() error {
		defer then()
		return fault.Guard("the timeline", func() error { return tl.Run(gctx, rec) })
	})
	return g.Wait()
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
