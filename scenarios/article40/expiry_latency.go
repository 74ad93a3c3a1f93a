package article40

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"sdchaos/clock"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/registry"
	"sdchaos/rig"
	"sdchaos/scenarios"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "expiry-latency",
		Article: "article 40.1",
		Summary: "how long a crashed instance stays listed under lazy, scan and heap expiry",
		Help: `Setup: the in-memory lease registry (package registry) on the real clock, one
registry per run, one instance per registry; no network.

Timeline of one run: the registries are built (each Scan registry starts its ticker in New); at
a random offset (seeded; uniform in [0, interval) for the scans, in [0, --scan-slow) for lazy
and heap) the timeline injects the crash: the instance registers, sends its last heartbeat and
stops. A probe then polls Lookup every 1 ms from just before ttl on; the run is
recorded as an op (caller = strategy, start = last heartbeat, end = first Lookup without the
instance, count = what Len() said just before). --crashes crashes per strategy (lazy, scan every
--scan-slow, scan every --scan-fast, heap) all run at once, so the scenario takes about
--scan-slow + ttl + --scan-slow. Control at time 0: --crashes explicit Deregister calls, each timed
until a Lookup no longer returns the instance.

Bands (the registry's rules): a lease is due at last heartbeat + ttl. Lazy collects it at the
first Lookup after that, heap at its timer's wake-up: gone within [ttl, ttl + 30 ms] (30 ms for
polling and scheduling). A scan collects it at the first tick after the deadline; the crash's
phase against the ticker is uniform, so the delay is uniform in [0, interval): min and max within
[ttl, ttl + interval + 30 ms]; the median of n runs within ttl + interval × the 10⁻⁴ and 1 − 10⁻⁴
quantiles of the median of n uniforms (Beta order statistics), + 30 ms; the spread (max − min)
within [interval × r, interval + 30 ms] where P(range of n uniforms < r) = 10⁻⁴ (0.55 at 20
runs). Lazy hides the instance from Lookup only: Len() still counts it in every run. Deregister
is a map delete under a mutex with no timer: gone when the call returns, within its own cost +
30 ms of scheduling.

Article (ttl 2 s, scans every 1 s and 0.2 s, 20 runs): lazy 2.00/2.01/2.01 s; scan 1 s
2.05/2.51/2.93 s; scan 0.2 s 2.03/2.11/2.20 s (min/median/max); deregister 59 µs; no heap run.`,
		Ground: scenarios.Computation, // no timeline, no process, no etcd
		New: func() scenarios.Config {
			return &expiryLatency{TTL: 2 * time.Second, Runs: 20, ScanSlow: time.Second, ScanFast: 200 * time.Millisecond}
		},
	})
}

// expiryLatency is article 40.1.
type expiryLatency struct {
	TTL                time.Duration
	Runs               int
	ScanSlow, ScanFast time.Duration
}

// latencyPoll is how often a run polls Lookup; latencySlack is the allowed
// delay beyond the rule's bound for polling and scheduling.
const (
	latencyPoll  = time.Millisecond
	latencySlack = 30 * time.Millisecond
	// opDeregister is the op name of the deregister control.
	opDeregister = "deregister"
	// opPace is the op each watch leaves about its own timing: Start −
	// Scheduled is how late its timer woke at ttl − 2 ms, Count the worst
	// lateness of a poll beyond its 1 ms pace, in µs (paceGate judges both).
	opPace     = "gate/pace"
	service    = "svc"
	instanceID = "i1"
)

func (s *expiryLatency) Flags(fs *flag.FlagSet) {
	fs.DurationVar(&s.TTL, "ttl", s.TTL, "lease ttl")
	fs.IntVar(&s.Runs, "crashes", s.Runs, "crashes per expiry strategy (and deregister calls)")
	fs.DurationVar(&s.ScanSlow, "scan-slow", s.ScanSlow, "interval of the slow background scan")
	fs.DurationVar(&s.ScanFast, "scan-fast", s.ScanFast, "interval of the fast background scan")
}

func (s *expiryLatency) Validate(scenarios.Common) error {
	switch {
	case s.TTL <= 0:
		return scenarios.Usagef("--ttl (%s) must be positive", s.TTL)
	case s.Runs < 2 || s.Runs > 1000:
		return scenarios.Usagef("--crashes (%d) must be within 2–1000 (min, median and max need several; all run at once)", s.Runs)
	case s.ScanSlow <= 0:
		return scenarios.Usagef("--scan-slow (%s) must be positive", s.ScanSlow)
	case s.ScanFast <= 0:
		return scenarios.Usagef("--scan-fast (%s) must be positive", s.ScanFast)
	}
	return nil
}

// latencyArm is one expiry strategy under test and the article's figures
// for it (min, median, max in seconds; hasArticle false for the heap).
type latencyArm struct {
	key, label string
	strategy   registry.Strategy
	interval   time.Duration // scan interval; 0 for lazy and heap
	article    [3]float64
	hasArticle bool
	spread     float64 // the article's max − min
}

func (s *expiryLatency) arms() []latencyArm {
	return []latencyArm{
		{key: "lazy", label: "lazy (checked at lookup)", strategy: registry.Lazy,
			article: [3]float64{2.00, 2.01, 2.01}, hasArticle: true, spread: 0.01},
		{key: "scan_slow", label: "background scan every " + s.ScanSlow.String(), strategy: registry.Scan, interval: s.ScanSlow,
			article: [3]float64{2.05, 2.51, 2.93}, hasArticle: true, spread: 0.88},
		{key: "scan_fast", label: "background scan every " + s.ScanFast.String(), strategy: registry.Scan, interval: s.ScanFast,
			article: [3]float64{2.03, 2.11, 2.20}, hasArticle: true, spread: 0.17},
		{key: "heap", label: "min-heap (sleeps until the next deadline)", strategy: registry.Heap},
	}
}

// phaseSpan is the range of a run's crash offset (relative to the scan ticker).
func (s *expiryLatency) phaseSpan(a latencyArm) time.Duration {
	if a.interval > 0 {
		return a.interval
	}
	return s.ScanSlow
}

// Run is the plan: a timeline with one crash and one watch probe per run,
// and the deregister control at time zero.
func (s *expiryLatency) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	var regs []*registry.Registry
	defer func() {
		for _, r := range regs {
			r.Close()
		}
	}()
	var tl fault.Timeline
	for _, a := range s.arms() {
		for j := range s.Runs {
			r, err := registry.New(registry.Options{Strategy: a.strategy, ScanInterval: a.interval})
			if err != nil {
				return nil, fmt.Errorf("building run %d of %s: %w", j+1, a.key, err)
			}
			regs = append(regs, r)
			c := &crash{target: a.key + "/" + strconv.Itoa(j+1), reg: r, ttl: s.TTL, done: make(chan struct{})}
			at := time.Duration(env.Rand.Float64() * float64(s.phaseSpan(a)))
			tl = append(tl, fault.Step{At: at, Fault: c}, fault.Step{At: at, Probe: s.watch(a, j, c)})
		}
	}
	tl = append(tl, fault.Step{At: 0, Probe: s.deregisterProbe()})
	env.Printf("crashing %d instances at once (%d per strategy), ttl %s", 4*s.Runs, s.Runs, s.TTL)
	rec := rig.NewRecorder(nil, 0)
	if err := tl.Run(ctx, rec); err != nil {
		return nil, fmt.Errorf("running the crash timeline: %w", err)
	}
	h := rec.History()
	for _, op := range h.Ops {
		h.Timeline = max(h.Timeline, op.End)
	}
	return &h, nil
}

// newRegistered returns a registry on the real clock holding the one
// instance with a lease of ttl.
func newRegistered(st registry.Strategy, interval, ttl time.Duration) (*registry.Registry, error) {
	r, err := registry.New(registry.Options{Strategy: st, ScanInterval: interval})
	if err != nil {
		return nil, fmt.Errorf("creating the registry: %w", err)
	}
	if err := r.Register(service, instanceID, "127.0.0.1:9150", ttl); err != nil {
		r.Close()
		return nil, fmt.Errorf("registering: %w", err)
	}
	return r, nil
}

// crash is the fault of one run: the instance registers (so its lease is
// fresh whatever the crash's offset) and sends its last heartbeat, after
// which it never renews again. done is closed once last is set.
type crash struct {
	target string
	reg    *registry.Registry
	ttl    time.Duration
	done   chan struct{}
	last   time.Time
}

// Describe returns the crash's event.
func (c *crash) Describe() history.Event {
	return history.Event{Kind: history.CrashInstance, Targets: []string{c.target},
		Label: "last heartbeat of " + c.target + ", then silence"}
}

// Inject registers the instance and sends its last heartbeat.
func (c *crash) Inject(context.Context) error {
	defer close(c.done)
	if err := c.reg.Register(service, instanceID, "127.0.0.1:9150", c.ttl); err != nil {
		return fmt.Errorf("registering: %w", err)
	}
	c.last = time.Now()
	if err := c.reg.Heartbeat(instanceID); err != nil {
		return fmt.Errorf("last heartbeat: %w", err)
	}
	return nil
}

// watch is the probe of one run: from just before ttl after the last
// heartbeat it polls Lookup until the instance is gone (or gives up one
// second after the latest the rule allows) and records the run as an op.
func (s *expiryLatency) watch(a latencyArm, j int, c *crash) fault.Probe {
	ev := history.Event{Kind: history.Probe, Targets: []string{c.target}, Label: "watch Lookup of " + c.target}
	return fault.ProbeFunc{Event: ev, Func: func(ctx context.Context, rec *history.Recorder) error {
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil
		}
		wake := c.last.Add(s.TTL - 2*latencyPoll)
		if clock.SleepUntil(ctx, wake) != nil {
			return nil
		}
		pace := history.Op{Caller: opPace, Kind: history.OpSample, Seq: j, Target: a.key, Scheduled: rec.Offset(wake), Start: rec.Offset(time.Now()), Outcome: history.OK}
		op := history.Op{Caller: a.key, Kind: history.OpSample, Seq: j, Target: a.strategy.String(), Scheduled: rec.Offset(c.last),
			Start: rec.Offset(c.last), Outcome: history.OK}
		giveUp := c.last.Add(s.TTL + a.interval + time.Second)
		prev := time.Now()
		for {
			n := c.reg.Len()
			now := time.Now()
			pace.Count = max(pace.Count, int((now.Sub(prev)-latencyPoll)/time.Microsecond))
			prev = now
			if len(c.reg.Lookup(service)) == 0 {
				op.End, op.Count = rec.Offset(time.Now()), n
				break
			}
			if time.Now().After(giveUp) {
				op.End, op.Count, op.Outcome, op.Err = rec.Offset(time.Now()), n, history.Fail, "still listed at give-up"
				break
			}
			if clock.SleepUntil(ctx, time.Now().Add(latencyPoll)) != nil {
				return nil
			}
		}
		pace.End = op.End
		rec.Add(pace)
		rec.Add(op)
		return nil
	}}
}

// deregisterProbe times --crashes explicit deregistrations, each until a
// Lookup no longer lists the instance, one after another.
func (s *expiryLatency) deregisterProbe() fault.Probe {
	ev := history.Event{Kind: history.Probe, Targets: []string{opDeregister},
		Label: fmt.Sprintf("%d explicit deregistrations", s.Runs)}
	return fault.ProbeFunc{Event: ev, Func: func(ctx context.Context, rec *history.Recorder) error {
		for i := range s.Runs {
			if err := s.deregisterOnce(rec, i); err != nil {
				return fmt.Errorf("deregister run %d: %w", i+1, err)
			}
		}
		return nil
	}}
}

// deregisterOnce records one Deregister plus the Lookup that confirms it.
func (s *expiryLatency) deregisterOnce(rec *history.Recorder, i int) error {
	r, err := newRegistered(registry.Scan, s.ScanSlow, s.TTL)
	if err != nil {
		return err
	}
	defer r.Close()
	start := time.Now()
	ok := r.Deregister(instanceID)
	left := len(r.Lookup(service))
	end := time.Now()
	op := history.Op{Caller: opDeregister, Kind: history.OpSample, Seq: i, Target: "scan", Scheduled: rec.Offset(start), Start: rec.Offset(start),
		End: rec.Offset(end), Count: left, Outcome: history.OK}
	if !ok || left > 0 {
		op.Outcome, op.Err = history.Fail, fmt.Sprintf("Deregister returned %v; Lookup still lists %d", ok, left)
	}
	rec.Add(op)
	return nil
}
