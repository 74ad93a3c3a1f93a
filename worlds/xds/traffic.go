package xds

import (
	"context"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/rig"
)

// clientReady bounds the wait for an xDS client's first successful call.
const clientReady = 30 * time.Second

// Traffic starts the xDS clients (each serving before time zero), the
// policy callers (primed with one read of the control plane's EDS) and the
// sampler of what etcd lists.
func (w *world) Traffic(ctx context.Context) ([]caller.Traffic, error) {
	phase := time.Duration(w.env.Rand.Int64N(int64(rig.DefaultRefresh)))
	var ts []caller.Traffic
	for _, c := range w.x.Callers {
		var t caller.Traffic
		var err error
		switch c.Kind {
		case experiment.RealClient:
			t, err = w.startClient(ctx, c)
		case experiment.PolicyCaller:
			t, err = w.newPolicyCaller(ctx, c, phase)
		}
		if err != nil {
			return nil, fmt.Errorf("xds: caller %s: %w", c.Name, err)
		}
		ts = append(ts, t)
	}
	w.watch = &cpWatcher{cp: w.cp}
	return append(ts, listedSampler{w}, w.watch), nil
}

// startClient starts one gRPC-Go xDS client process and waits until it
// has made a successful call.
func (w *world) startClient(ctx context.Context, c experiment.Caller) (*recordedClient, error) {
	port := w.cp.Addr
	cl, err := StartClient(w.sup, w.dir, ClientSpec{Name: "xds-" + c.Name, Service: Service, Rate: rig.RateOf(c), CallTimeout: rig.CallTimeout,
		Bootstrap: Bootstrap{Server: port, NodeID: c.Name, IgnoreResourceDeletion: c.Client == ClientXDSIgnoreDeletion}})
	if err != nil {
		return nil, err
	}
	rc := &recordedClient{name: c.Name, c: cl}
	w.clients = append(w.clients, rc)
	t0 := time.Now()
	for TallyOf(cl.Calls(t0.Add(-time.Minute), time.Now())).OK == 0 {
		if time.Since(t0) > clientReady || ctx.Err() != nil {
			return nil, fmt.Errorf("no successful call within %s (log %s)", clientReady, cl.LogPath)
		}
		if err := clock.SleepFor(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
	}
	w.env.Printf("%s (%s) serving %.2f s after its start", c.Name, c.Client, time.Since(t0).Seconds())
	return rc, nil
}

// recordedClient is an xDS client process as traffic: it calls on its own
// clock from its start; the calls due from time zero until the end are
// recorded, one op per JSON line, once the run has ended.
type recordedClient struct {
	name string
	c    *Client
}

// Run waits until the run's end plus one call deadline, then records the
// client's calls due within [0, d). A client whose process exited before
// the end fails every call due after its exit (at its rate): its death
// shows in its checks, never as a shorter run that failed nothing.
func (r *recordedClient) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	end := rec.T0().Add(d)
	exited := make(chan time.Time, 1)
	go func() {
		select {
		case <-r.c.Child().Done():
			exited <- time.Now()
		case <-ctx.Done():
		}
	}()
	_ = clock.SleepUntil(ctx, end.Add(rig.CallTimeout+200*time.Millisecond))
	k, last := r.record(rec, end)
	select {
	case at := <-exited:
		if at.Before(end) {
			r.recordDead(rec, k, last.Add(r.period()), end, at)
		}
	default:
	}
	return nil
}

// record adds the calls due within [T0, end) and returns how many, and
// when the last was due.
func (r *recordedClient) record(rec *history.Recorder, end time.Time) (int, time.Time) {
	k, last := 0, rec.T0().Add(-r.period())
	for _, l := range r.c.Calls(rec.T0().Add(-rig.CallTimeout), end) {
		due := l.Start
		if l.Scheduled != nil {
			due = *l.Scheduled
		}
		if due.Before(rec.T0()) || !due.Before(end) {
			continue
		}
		op := history.Op{Caller: r.name, Kind: history.OpCall, Seq: k, Scheduled: rec.Offset(due), Start: rec.Offset(l.Start),
			End: rec.Offset(l.End), Target: l.Target, Outcome: history.OK, Err: l.Err, Paced: l.Scheduled != nil}
		if l.Outcome != OutcomeOK {
			op.Outcome = history.Fail
		}
		rec.Add(op)
		k, last = k+1, due
	}
	return k, last
}

// recordDead fails every call due from from until end, the client's
// process having exited at exit.
func (r *recordedClient) recordDead(rec *history.Recorder, k int, from, end, exit time.Time) {
	why := fmt.Sprintf("the xDS client's process exited at %.2f s", rec.Offset(exit).Seconds())
	for due := from; due.Before(end); due = due.Add(r.period()) {
		rec.Add(history.Op{Caller: r.name, Kind: history.OpCall, Seq: k, Scheduled: rec.Offset(due), Start: rec.Offset(due),
			End: rec.Offset(due), Outcome: history.Fail, Err: why})
		k++
	}
}

// period is the time between two of the client's calls.
func (r *recordedClient) period() time.Duration {
	return time.Duration(float64(time.Second) / r.c.Spec.Rate)
}

func (r *recordedClient) close() { r.c.Close() }

// newPolicyCaller is a policy caller whose list refresh is one read of the
// control plane's EDS over a fresh ADS stream (edsSource).
func (w *world) newPolicyCaller(ctx context.Context, c experiment.Caller, phase time.Duration) (*caller.Caller, error) {
	src, err := newEDSSource(w.cp.Addr, c.Name, NamesOf(Service).Cluster, w.group)
	if err != nil {
		return nil, err
	}
	cfg := rig.PolicyCaller(c, phase)
	cfg.Log = w.env.Log
	pc := caller.New(cfg, src)
	w.callers = append(w.callers, pc)
	w.env.AddCloser(src.Close)
	if err := pc.Prime(ctx); err != nil {
		return nil, err
	}
	return pc, nil
}

// listedSampler samples how many instances etcd lists (read on the
// members directly, not through the control plane's proxies).
type listedSampler struct{ w *world }

// Run samples from the recorder's zero for d.
func (s listedSampler) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	rig.SampleListed(ctx, rec, d, s.w.countListed)
	return nil
}
