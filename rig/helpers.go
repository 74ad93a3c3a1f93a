package rig

import (
	"context"
	"errors"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/experiment"
	"sdchaos/history"
)

// NeedsLinks reports whether a step cuts the clients' links (the rig then
// puts a proxy in front of each member).
func NeedsLinks(x experiment.Experiment) bool {
	for _, s := range x.Timeline {
		if s.Fault == experiment.Unreachable && s.HowOf() == experiment.Blackhole {
			return true
		}
	}
	return false
}

// PolicyCaller is the harness's caller for a policy caller of x, with
// the refresh phase every policy caller of the run shares.
func PolicyCaller(c experiment.Caller, phase time.Duration) caller.Config {
	cfg := caller.DefaultConfig(c.Name)
	cfg.Rate, cfg.Refresh, cfg.RefreshTimeout, cfg.CallTimeout = RateOf(c), RefreshOf(c), RefreshTimeout, CallTimeout
	cfg.RefreshPhase = phase % cfg.Refresh
	cfg.Policy = caller.Policy{OnError: caller.KeepList, Eject: c.Eject.D()}
	if c.Policy == experiment.Clear {
		cfg.Policy.OnError = caller.ClearList
	}
	return cfg
}

// HasFault reports whether x has a step with fault f.
func HasFault(x experiment.Experiment, f experiment.FaultKind) bool {
	for _, s := range x.Timeline {
		if s.Fault == f {
			return true
		}
	}
	return false
}

// ProbeOp runs one probe operation with ProbeTimeout and records it.
func ProbeOp(ctx context.Context, rec *history.Recorder, member string, op experiment.ProbeOp, f func(context.Context) (int, error)) {
	start := time.Now()
	c, cancel := context.WithTimeout(ctx, ProbeTimeout)
	n, err := f(c)
	cancel()
	RecordProbe(rec, member, op, start, n, err)
}

// RecordProbe records a members probe's operation: Kind OpProbe, Via the
// member, Target the operation, Count what it counted.
func RecordProbe(rec *history.Recorder, member string, op experiment.ProbeOp, start time.Time, n int, err error) {
	o := history.Op{Caller: "probe/" + member + "/" + string(op), Kind: history.OpProbe, Via: member, Target: string(op),
		Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(time.Now()), Count: n, Outcome: history.OK}
	if err != nil {
		o.Outcome, o.Err = caller.Classify(err), err.Error()
	}
	rec.Add(o)
}

// ListedEvery is how often a world samples how many instances its
// registry lists.
const ListedEvery = 100 * time.Millisecond

// SampleListed records count's answer every ListedEvery from rec's zero
// for d, as OpListed ops, each bounded by ListedEvery (an error: a failed
// sample).
func SampleListed(ctx context.Context, rec *history.Recorder, d time.Duration, count func(context.Context) (int, error)) {
	end := rec.T0().Add(d)
	for at := rec.T0(); at.Before(end); at = at.Add(ListedEvery) {
		if err := clock.SleepUntil(ctx, at); err != nil {
			return
		}
		start := time.Now()
		c, cancel := context.WithTimeout(ctx, ListedEvery)
		n, err := count(c)
		cancel()
		op := history.Op{Caller: "registry/listed", Kind: history.OpListed, Scheduled: rec.Offset(at), Start: rec.Offset(start),
			End: rec.Offset(time.Now()), Outcome: history.OK, Count: n}
		if err != nil {
			op.Outcome, op.Err, op.Count = caller.Classify(err), err.Error(), 0
		}
		rec.Add(op)
	}
}

// ErrTarget marks an external target the run cannot use (unreachable,
// unhealthy, bad credentials, a nemesis file that does not fit its
// members); the command exits 2 on it.
var ErrTarget = errors.New("external target unusable")

// RefusePackets refuses, in one line, the steps that drop real packets
// (registry-unreachable how: drop, member-unreachable) in a world that does
// not make them.
func RefusePackets(name experiment.Registry, x experiment.Experiment) error {
	for i, s := range x.Timeline {
		switch {
		case s.Fault == experiment.MemberUnreachable:
			return Cannotf("%s: timeline[%d]: member-unreachable (one member's client packets dropped) is not made in this world yet", name, i)
		case s.NeedsPackets():
			return Cannotf("%s: timeline[%d]: %s how: drop (every client packet dropped) is not made in this world yet", name, i, s.Fault)
		}
	}
	return nil
}
