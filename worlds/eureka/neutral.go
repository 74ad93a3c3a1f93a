package eureka

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/worlds/eureka/eurekamodel"
	"sdchaos/worlds/eureka/eurekareal"
)

// eurekaNeutral is the real Eureka world behind the seam for an experiment
// written as data: one cluster of 3 real servers with the experiment's
// instances, its policy callers reading GET /eureka/apps/WORKER through
// the client proxies, its Java DiscoveryClients, and a timeline of fault
// values on them.
type eurekaNeutral struct {
	env     *rig.Env
	x       experiment.Experiment
	cfg     eurekamodel.Config
	props   eurekareal.Props
	backend RealBackend
	sink    *rig.Sink // the workers' registrations, recorded once the recorder exists

	rig     *Eureka
	cl      *EurekaCluster
	clients []EurekaScheduler
	probes  atomic.Int64
}

// listedWait bounds the wait, after the start, until every server lists
// every instance (replication is batched every 500 ms).
const listedWait = 30 * time.Second

// Describe says what runs.
func (w *eurekaNeutral) Describe() string {
	return fmt.Sprintf("real Eureka: 3 servers, %d instances (lease %s, renewed every %s), %d callers for %s",
		w.x.Instances.Count, w.cfg.LeaseDuration, w.cfg.RenewInterval, len(w.x.Callers), w.env.Duration)
}

// Start starts the servers and the instances and waits until every server
// lists every instance (the ready check records whether they did).
func (w *eurekaNeutral) Start(ctx context.Context) error {
	r, err := NewEureka(w.env, w.backend, 1)
	if err != nil {
		return err
	}
	w.rig = r
	if w.cl, err = r.StartCluster(ctx, "", w.cfg, w.x.Instances.Count); err != nil {
		return err
	}
	deadline := time.Now().Add(listedWait)
	for n, _ := w.listed(ctx); n < w.x.Instances.Count && time.Now().Before(deadline); n, _ = w.listed(ctx) {
		if err := clock.SleepFor(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// listed returns how many of the instances every server and every Java
// client holds (the least over them).
func (w *eurekaNeutral) listed(ctx context.Context) (int, error) {
	least := -1
	for _, c := range w.clients {
		if h := c.(*realScheduler).holding(); least < 0 || h < least {
			least = h
		}
	}
	for _, s := range w.cl.Servers {
		n, err := serverListed(ctx, s)
		if err != nil {
			return 0, err
		}
		if least < 0 || n < least {
			least = n
		}
	}
	return max(least, 0), nil
}

// Traffic samples what the servers list, primes the policy callers, runs
// the users' clients (rig.ExecClient) and starts the Java clients (each
// waits for its first stored registry, then until its cache holds every
// instance — its first fetches may be answered from a response cache up
// to 30 s old —, then a seeded share of its fetch interval).
func (w *eurekaNeutral) Traffic(ctx context.Context) ([]caller.Traffic, error) {
	phase := w.env.CallerPhase()
	ts := []caller.Traffic{eurekaListed{servers: w.cl.Servers}}
	for _, c := range w.x.Callers {
		switch c.Kind {
		case experiment.PolicyCaller:
			src := caller.NewEurekaSource(serviceURLs(w.rig.Shuffled(w.cl.URLs)), eurekaApp)
			pc := caller.New(rig.PolicyCaller(c, phase), src)
			w.rig.Defer(func() { pc.Close(); src.Close() })
			if err := pc.Prime(ctx); err != nil {
				return nil, fmt.Errorf("starting callers: %w", err)
			}
			ts = append(ts, pc)
		case experiment.RealClient:
			s, err := w.rig.Scheduler(ctx, w.cl, SchedulerSpec{Name: c.Name, Order: w.rig.Shuffled(w.cl.URLs),
				Fetch: w.cfg.FetchInterval, Rate: rig.RateOf(c), App: eurekaApp, Holding: w.x.Instances.Count})
			if err != nil {
				return nil, fmt.Errorf("starting real clients: %w", err)
			}
			w.clients = append(w.clients, s)
			ts = append(ts, s)
		case experiment.ExecClient:
			ts = append(ts, w.execClient(c))
		}
	}
	return ts, nil
}

// Timeline turns the experiment's steps into fault values on the world.
func (w *eurekaNeutral) Timeline(context.Context) (fault.Timeline, error) {
	var tl fault.Timeline
	for i, s := range w.x.Timeline {
		st := fault.Step{At: s.At.D(), For: s.For.D(), Origin: i + 1}
		if s.Probe != "" {
			st.Probe = w.membersProbe()
		} else {
			f, err := w.fault(s)
			if err != nil {
				return nil, fmt.Errorf("timeline[%d] (%s): %w", i, s.Fault, err)
			}
			st.Fault = f
		}
		tl = append(tl, st)
	}
	return tl, nil
}

// Recorder returns a new recorder with the ready check in it (every server
// lists every instance) and points the workers' registrations at it.
func (w *eurekaNeutral) Recorder(ctx context.Context) (*history.Recorder, time.Duration) {
	start := time.Now()
	n, err := w.listed(ctx)
	end := time.Now()
	rec := rig.NewRecorder(w.env, 0)
	w.sink.Set(rec)
	op := history.Op{Caller: history.ReadyOp, Kind: history.OpGate, Scheduled: rec.Offset(start), Start: rec.Offset(start),
		End: rec.Offset(end), Count: n, Value: fmt.Sprint(w.x.Instances.Count), Outcome: history.OK}
	if err != nil {
		op.Outcome, op.Err = history.Fail, err.Error()
	}
	rec.Add(op)
	return rec, w.env.Duration
}

// Finish reports the JVMs' memory; the measured timeline is the run's duration.
func (w *eurekaNeutral) Finish(context.Context, *history.Recorder) (time.Duration, any, error) {
	reportMemory(w.env, &EurekaWorld{Eureka: w.rig, Clusters: []*EurekaCluster{w.cl}, Schedulers: w.clients})
	return w.env.Duration, nil, nil
}

// Close stops what runs in the harness (the JVMs belong to the run's supervisor).
func (w *eurekaNeutral) Close() {
	if w.rig != nil {
		w.rig.Close()
	}
}
