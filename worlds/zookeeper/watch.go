package zookeeper

import (
	"context"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/rig"
)

// MemberWatch asks every member, all along the run, what it still serves:
// a read (the instance list) and a write on a session pinned to it, and a
// registration on a new session, each with ProbeTimeout; and its own state
// (srvr). Every op is Kind OpProbe, Via the member, Target the operation
// (list, write, register, mode), Scheduled its tick: the judge reads each
// member's refusal windows from them.
type MemberWatch struct {
	probes []*zkMemberProbe
	every  map[experiment.ProbeOp]time.Duration
}

// NewMemberWatch opens a pinned client to every member (released at the
// world's Close); every says how often each operation is asked (an
// operation it leaves out is not).
func (z *ZooKeeper) NewMemberWatch(ctx context.Context, every map[experiment.ProbeOp]time.Duration) (*MemberWatch, error) {
	ps, err := z.newMemberProbes(ctx)
	if err != nil {
		return nil, err
	}
	return &MemberWatch{probes: ps, every: every}, nil
}

// Run asks every member on its ticks from rec's time zero for d, and waits
// for the operations in flight.
func (w *MemberWatch) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	var wg sync.WaitGroup
	for _, p := range w.probes {
		ops := map[experiment.ProbeOp]func(context.Context) (int, error){experiment.List: p.list, ZKWrite: p.write, experiment.Register: p.register}
		for op, f := range ops {
			if every := w.every[op]; every > 0 {
				wg.Go(func() { tick(ctx, rec, d, every, &wg, func(due time.Time) { zkProbeOp(ctx, rec, p, op, due, f) }) })
			}
		}
		if every := w.every[ZKMode]; every > 0 {
			wg.Go(func() { tick(ctx, rec, d, every, &wg, func(time.Time) { p.mode(ctx, rec) }) })
		}
	}
	wg.Wait()
	return nil
}

// tick calls f every every from rec's time zero until d, each call on its
// own goroutine (open loop: a slow answer never delays the next ask).
func tick(ctx context.Context, rec *history.Recorder, d, every time.Duration, wg *sync.WaitGroup, f func(due time.Time)) {
	for at := time.Duration(0); at < d; at += every {
		due := rec.T0().Add(at)
		if clock.SleepUntil(ctx, due) != nil {
			return
		}
		wg.Go(func() { f(due) })
	}
}

// zkProbeOp runs one operation of a member probe with ProbeTimeout and
// records it with its tick as Scheduled.
func zkProbeOp(ctx context.Context, rec *history.Recorder, p *zkMemberProbe, op experiment.ProbeOp, due time.Time,
	f func(context.Context) (int, error)) {
	start := time.Now()
	c, cancel := context.WithTimeout(ctx, rig.ProbeTimeout)
	n, err := f(c)
	cancel()
	if ctx.Err() != nil {
		return // the run is over: not a refusal
	}
	o := history.Op{Caller: "probe/" + p.member.Name + "/" + string(op), Kind: history.OpProbe, Via: p.member.Name, Target: string(op),
		Scheduled: rec.Offset(due), Start: rec.Offset(start), End: rec.Offset(time.Now()), Count: n, Outcome: history.OK}
	if err != nil {
		o.Outcome, o.Err = caller.Classify(err), err.Error()
	}
	rec.Add(o)
}
