package eurekaarticle

import (
	"fmt"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// synth returns a history of ops and events (real offsets) over real, with data.
func synth(t *testing.T, real time.Duration, data any, ops []history.Op, evs ...history.Event) *history.History {
	t.Helper()
	h := &history.History{Ops: ops, Events: evs, Timeline: real}
	if err := h.SetData(data); err != nil {
		t.Fatal(err)
	}
	return h
}

// clockOf returns a model run at factor whose recorder zero is model zero.
func clockOf(factor float64, d time.Duration) modelRun {
	return modelRun{Clock: eureka.ModelClock{Factor: factor}, Duration: d}
}

// event returns an injected event of kind at model time at (real = at / factor).
func event(m modelRun, kind history.EventKind, phase history.Phase, at time.Duration, targets ...string) history.Event {
	return history.Event{At: m.Clock.Real(at), Kind: kind, Phase: phase, Targets: targets, Label: string(kind)}
}

// tasks returns n tasks of caller every step from real offset from; fail(k)
// decides the outcome of task k, tries(k) its tries.
func tasks(caller string, from, step time.Duration, n int, fail func(k int) bool, tries func(k int) int) []history.Op {
	ops := make([]history.Op, n)
	for k := range n {
		at := from + time.Duration(k)*step
		ops[k] = history.Op{Caller: caller, Seq: k, Scheduled: at, Start: at, End: at + time.Millisecond, Outcome: history.OK, Count: 1}
		if fail(k) {
			ops[k].Outcome = history.Fail
		}
		if tries != nil {
			ops[k].Count = tries(k)
		}
	}
	return ops
}

func never(int) bool { return false }

// judgeWant judges h and requires the run's verdict and, if check is set,
// that check's verdict.
func judgeWant(t *testing.T, cfg interface {
	Judge(*history.History) *report.Result
}, h *history.History, want report.Verdict, check string, checkWant report.Verdict) *report.Result {
	t.Helper()
	res := cfg.Judge(h)
	res.Finish()
	if res.Verdict != want {
		t.Errorf("verdict %s, want %s: %s", res.Verdict, want, scentest.Names(res))
	}
	if check != "" {
		if v := scentest.Verdict(res, check); v != checkWant {
			t.Errorf("check %q: %s, want %s (%s)", check, v, checkWant, scentest.Names(res))
		}
	}
	scentest.NoUnexplainedDifference(t, res)
	return res
}

// --- eureka-failover ---

const (
	url1, url2, url3 = "http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"
)

type failoverCase struct {
	switchAfter [2]time.Duration // per scheduler (15 s, 30 s)
	attempts    int              // failed attempts before the switch
	listed      int
	failTask    bool
	gap         bool // no task between model 40 and 50 s
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%02d", i+1)
	}
	return out
}

func failoverHistory(t *testing.T, c failoverCase) *history.History {
	m := clockOf(5, 80*time.Second)
	data := failoverData{modelRun: m, Servers: map[string]string{"s1": url1, "s2": url2, "s3": url3}, FinalSizes: map[string]int{"s2": 50, "s3": 50}}
	kill := 20 * time.Second
	var ops []history.Op
	for i, f := range []time.Duration{15 * time.Second, 30 * time.Second} {
		var bad []eurekamodel.Attempt
		for range c.attempts {
			bad = append(bad, eurekamodel.Attempt{Server: url1, Err: "connection refused"})
		}
		evs := []eurekamodel.FetchEvent{
			{At: 5 * time.Second, OK: true, IDs: ids(50), Attempts: []eurekamodel.Attempt{{Server: url1, Status: 200}}},
			{At: kill + c.switchAfter[i], OK: true, IDs: ids(c.listed), Attempts: append(bad, eurekamodel.Attempt{Server: url2, Status: 200})},
		}
		name := schedName(f)
		data.Schedulers = append(data.Schedulers, schedulerData{Name: name, Fetch: f, Order: []string{url1, url2, url3}, Fetches: evs})
		ops = append(ops, tasks(name, 0, 25*time.Millisecond, 640, func(k int) bool {
			return c.failTask && k == 300
		}, nil)...)
	}
	if c.gap {
		var kept []history.Op
		for _, op := range ops {
			if at := m.Clock.OfReal(op.Scheduled); at < 40*time.Second || at >= 50*time.Second {
				kept = append(kept, op)
			}
		}
		ops = kept
	}
	return synth(t, 16*time.Second, data, ops, event(m, eureka.EventKillServer, history.Inject, kill, "s1"))
}

func TestEurekaFailoverJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "eureka-failover").(*eurekaFailover)
	shape := failoverCase{switchAfter: [2]time.Duration{9 * time.Second, 24 * time.Second}, attempts: 2, listed: 50}
	with := func(f func(*failoverCase)) failoverCase { c := shape; f(&c); return c }
	tests := []struct {
		name    string
		c       failoverCase
		verdict report.Verdict
		check   string
		want    report.Verdict
	}{
		{"article shape: the 15 s scheduler switches within 15 s", shape, report.Differs, "switch after the kill (fetch 15s)", report.Differs},
		{"article shape: the 30 s scheduler reproduces 15–30 s", shape, report.Differs, "switch after the kill (fetch 30s)", report.Reproduced},
		// Must fail: a slow switch, extra attempts, a failed task, a lost worker, a stop.
		{"switch slower than the fetch interval", with(func(c *failoverCase) { c.switchAfter[0] = 18 * time.Second }), report.Outside,
			"switch after the kill (fetch 15s)", report.Outside},
		{"three failed attempts", with(func(c *failoverCase) { c.attempts = 3 }), report.Outside, "failed fetch attempts (fetch 15s)", report.Outside},
		{"a task failed", with(func(c *failoverCase) { c.failTask = true }), report.Outside, "failed tasks", report.Outside},
		{"a worker lost", with(func(c *failoverCase) { c.listed = 49 }), report.Outside, "workers lost from the schedulers' registries", report.Outside},
		{"scheduling stopped for 10 s", with(func(c *failoverCase) { c.gap = true }), report.Outside,
			"every 10 model seconds after the kill had successful tasks", report.Outside},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := judgeWant(t, s, failoverHistory(t, tc.c), tc.verdict, tc.check, tc.want)
			if got := res.Metrics["switch_s@15"]; got != tc.c.switchAfter[0].Seconds() {
				t.Errorf("switch_s@15 = %g", got)
			}
		})
	}
	h := failoverHistory(t, shape)
	h.Events = nil
	judgeWant(t, s, h, report.Invalid, "", "")
}

func TestWantFailedAttempts(t *testing.T) {
	order := []string{url1, url2, url3}
	tests := []struct {
		stuck  bool
		killed string
		want   int
	}{{true, url1, 2}, {true, url2, 1}, {false, url1, 0}}
	for _, tc := range tests {
		if got := wantFailedAttempts(tc.stuck, order, tc.killed); got != tc.want {
			t.Errorf("stuck=%v killed=%s: %d, want %d", tc.stuck, tc.killed, got, tc.want)
		}
	}
}

// --- self-preservation ---

type spCase struct {
	engageAfter time.Duration // first refusing run after the partition
	onEvicts    bool          // "on" evicts a worker during the partition
	offStuck    bool          // "off" never empties
	deadGoneAt  time.Duration // when r0 stops listing the dead worker
	r3Fails     bool
	noR0        bool
}

const (
	spPart   = 180 * time.Second
	spHeal   = spPart + 20*time.Minute
	spDeath  = spPart + 5*time.Minute
	spFactor = 40
)

func spHistory(t *testing.T, c spCase) *history.History {
	m := clockOf(spFactor, 1710*time.Second) // 28.5 min: the defaults' timeline
	data := spData{modelRun: m, On: map[string]eurekamodel.History{}, Off: map[string]eurekamodel.History{}}
	for _, name := range []string{"s1", "s2", "s3"} {
		data.On["on-"+name] = onServer(c, m.Duration)
		data.Off["off-"+name] = offServer(c, m.Duration)
	}
	for at := 10 * time.Second; at < m.Duration; at += 30 * time.Second {
		listed := ids(50)
		if at >= c.deadGoneAt {
			listed = listed[1:]
		}
		data.R0Fetches = append(data.R0Fetches, eurekamodel.FetchEvent{At: at, OK: true, IDs: listed})
	}
	real := m.Clock.Real(m.Duration)
	var ops []history.Op
	if !c.noR0 {
		ops = tasks(schedR0, 0, 50*time.Millisecond, int(real/(50*time.Millisecond)), func(k int) bool {
			at := m.Clock.OfReal(time.Duration(k) * 50 * time.Millisecond)
			return at >= spDeath && at < c.deadGoneAt && k%50 == 0
		}, nil)
	}
	ops = append(ops, tasks(schedR3, 0, 50*time.Millisecond, int(real/(50*time.Millisecond)), func(k int) bool { return c.r3Fails && k == 400 }, nil)...)
	return synth(t, real, data, ops,
		of(clusterOn, event(m, eureka.EventPartitionClients, history.Inject, spPart, "'on' workers")),
		of(clusterOff, event(m, eureka.EventPartitionClients, history.Inject, spPart, "'off' workers")),
		of(clusterOn, event(m, eureka.EventCrashWorkers, history.Inject, spDeath, "w01")),
		of(clusterOn, event(m, eureka.EventPartitionClients, history.Heal, spHeal, "'on' workers")),
		of(clusterOff, event(m, eureka.EventPartitionClients, history.Heal, spHeal, "'off' workers")))
}

// of returns e as an event of cluster.
func of(cluster string, e history.Event) history.Event {
	e.Cluster = cluster
	return e
}

// onServer runs its eviction task every minute: refused from engageAfter
// into the partition until 2 minutes after the heal.
func onServer(c spCase, d time.Duration) eurekamodel.History {
	var h eurekamodel.History
	for at := time.Minute; at < d; at += time.Minute {
		r := eurekamodel.EvictionRun{At: at, Enabled: true, Size: 50, RenewsLastMin: 100, Threshold: 86}
		if at >= spPart+c.engageAfter && at < spHeal+2*time.Minute {
			r.Enabled, r.RenewsLastMin = false, 0
		}
		if c.onEvicts && at == spPart+10*time.Minute {
			r.Enabled, r.Expired, r.Evicted = true, 1, []string{"WORKER/w02"}
		}
		h.Evictions = append(h.Evictions, r)
	}
	return h
}

// offServer evicts the cap every minute from 4 minutes into the partition.
func offServer(c spCase, d time.Duration) eurekamodel.History {
	var h eurekamodel.History
	size := 50
	for at := time.Minute; at < d; at += time.Minute {
		r := eurekamodel.EvictionRun{At: at, Enabled: true, Size: size}
		if at >= spPart+4*time.Minute && size > 0 && !c.offStuck {
			r.Expired = size
			for range eurekamodel.EvictionLimit(size, 0.85) {
				r.Evicted = append(r.Evicted, fmt.Sprintf("WORKER/w%02d", size))
				size--
			}
		}
		h.Evictions = append(h.Evictions, r)
	}
	return h
}

func TestSelfPreservationJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "self-preservation").(*selfPreservation)
	shape := spCase{engageAfter: time.Minute, deadGoneAt: spHeal + 150*time.Second}
	with := func(f func(*spCase)) spCase { c := shape; f(&c); return c }
	engaged := "on: self-preservation engaged after the partition (last of 3 servers)"
	tests := []struct {
		name    string
		c       spCase
		verdict report.Verdict
		check   string
		want    report.Verdict
	}{
		{"the source's rule: engaged within a minute, the article's 15 min differs", shape, report.Differs, engaged, report.Differs},
		// Must fail: engagement at the article's 15 min, evictions, a dead worker dropped early, retries that fail.
		{"engaged after 15 minutes", with(func(c *spCase) { c.engageAfter = 15 * time.Minute }), report.Outside, engaged, report.Outside},
		{"on evicted a worker", with(func(c *spCase) { c.onEvicts = true }), report.Outside,
			"on: workers evicted during the partition (most on one server)", report.Outside},
		{"off never emptied", with(func(c *spCase) { c.offStuck = true }), report.Outside,
			"off: every registry emptied by eviction (last of 3 servers)", report.Outside},
		{"dead worker dropped during the partition", with(func(c *spCase) { c.deadGoneAt = spDeath + 3*time.Minute }), report.Outside,
			"dead worker listed in r0's registry after it died", report.Outside},
		{"r3 failed a task", with(func(c *spCase) { c.r3Fails = true }), report.Outside,
			"r3 (3 retries on other workers): failed tasks", report.Outside},
		{"no r0 task", with(func(c *spCase) { c.noR0 = true }), report.Invalid,
			"r0 (no retry): failed share while the dead worker is listed", report.Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judgeWant(t, s, spHistory(t, tc.c), tc.verdict, tc.check, tc.want)
		})
	}
	h := spHistory(t, shape)
	h.Events = h.Events[:2]
	judgeWant(t, s, h, report.Invalid, "", "")
}

// --- eureka-drill ---

type drillCase struct {
	fail    map[int]func(k int) bool
	noRetry bool // R ≥ 1 tasks never need a second try
	noOps   bool
}

// every returns a failure pattern of f in n spread evenly, from task from on.
func every(f, n, from int) func(k int) bool {
	return func(k int) bool { return k >= from && (k*f)/n != ((k+1)*f)/n }
}

func drillHistory(t *testing.T, c drillCase) *history.History {
	m := clockOf(4, 160*time.Second)
	data := drillData{modelRun: m, Fetches: map[string][]eurekamodel.FetchEvent{}, Servers: map[string]eurekamodel.ControlStats{}}
	var ops []history.Op
	for _, r := range []int{0, 1, 3} {
		fail := c.fail[r]
		tries := func(k int) int {
			switch {
			case fail(k):
				return r + 1
			case r > 0 && !c.noRetry && k%5 == 2:
				return 2
			}
			return 1
		}
		// real offsets 10 s + k × 25 ms ⇒ model 40 s … 160 s
		ops = append(ops, tasks(retryName(r), 10*time.Second, 25*time.Millisecond, 1200, fail, tries)...)
	}
	if c.noOps {
		ops = nil
	}
	fault := 40 * time.Second
	return synth(t, 40*time.Second, data, ops,
		event(m, eureka.EventKillServer, history.Inject, fault, "s1"),
		event(m, eureka.EventCrashWorkers, history.Inject, fault, ids(10)...),
		event(m, eureka.EventDelayServers, history.Inject, fault, "s2", "s3"))
}

func TestEurekaDrillJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "eureka-drill", "--workers", "50").(*eurekaDrill)
	theory := map[int]func(int) bool{0: every(240, 1200, 0), 1: every(44, 1200, 0), 3: every(1, 1200, 0)}
	with := func(r int, f func(int) bool) map[int]func(int) bool {
		out := map[int]func(int) bool{}
		for k, v := range theory {
			out[k] = v
		}
		out[r] = f
		return out
	}
	early := "first 30 s after the faults: failed share with R = 0"
	tests := []struct {
		name    string
		c       drillCase
		verdict report.Verdict
		check   string
		want    report.Verdict
	}{
		{"theory", drillCase{fail: theory}, report.Reproduced, "success with R = 3 at least 99 %", report.Reproduced},
		{"sporadic failures in the first 30 s", drillCase{fail: theory}, report.Reproduced, early, report.Reproduced},
		// Must fail: too few failures without retries, 3 retries below 99 %, no early failures, no retry onto other workers.
		{"no retries fail too little", drillCase{fail: with(0, every(100, 1200, 0))}, report.Outside, "success with R = 0 (exact theory ± 4σ)", report.Outside},
		{"3 retries below 99 %", drillCase{fail: with(3, every(15, 1200, 0))}, report.Outside, "success with R = 3 at least 99 %", report.Outside},
		{"no failure in the first 30 s", drillCase{fail: with(0, every(300, 1200, 300))}, report.Outside, early, report.Outside},
		{"failures never retried on another worker", drillCase{fail: theory, noRetry: true}, report.Outside,
			"first 30 s after the faults: share of R = 3 tasks retried on another worker", report.Outside},
		{"no task", drillCase{fail: theory, noOps: true}, report.Invalid, early, report.Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := judgeWant(t, s, drillHistory(t, tc.c), tc.verdict, tc.check, tc.want)
			if tc.c.noOps {
				return
			}
			n := 0
			for k := range 1200 {
				if tc.c.fail[0](k) {
					n++
				}
			}
			if got, want := res.Metrics["success@0"], 1-float64(n)/1200; got != want {
				t.Errorf("success@0 = %g, want %g", got, want)
			}
		})
	}
	h := drillHistory(t, drillCase{fail: theory})
	h.Events = h.Events[:1]
	judgeWant(t, s, h, report.Invalid, "", "")
}

// --- replication-lag ---

type lagCase struct {
	peerDelay   time.Duration
	cacheDelay  time.Duration // a client lists an id from this long after it registered
	missingPeer bool          // s3 never gets r01
	noOps       bool
}

func lagHistory(t *testing.T, c lagCase) *history.History {
	m := clockOf(5, 130*time.Second)
	data := lagData{modelRun: m, Origin: "s1", Servers: map[string]eurekamodel.History{}, Fetchers: map[string][]eurekamodel.FetchEvent{}}
	var s1, s2, s3 eurekamodel.History
	var ops []history.Op
	reg := map[string]time.Duration{}
	for i := range 10 {
		id := fmt.Sprintf("r%02d", i+1)
		at := 5*time.Second + time.Duration(i)*6*time.Second + time.Duration(i*i)*100*time.Millisecond
		reg[id] = at
		s1.Events = append(s1.Events, eurekamodel.Event{At: at, Kind: eurekamodel.EventRegister, ID: "REG/" + id, New: true})
		s2.Events = append(s2.Events, eurekamodel.Event{At: at + c.peerDelay, Kind: eurekamodel.EventRegister, ID: "REG/" + id, Replicated: true})
		if !c.missingPeer || i > 0 {
			s3.Events = append(s3.Events, eurekamodel.Event{At: at + c.peerDelay, Kind: eurekamodel.EventRegister, ID: "REG/" + id, Replicated: true})
		}
		r := m.Clock.Real(at)
		ops = append(ops, history.Op{Caller: opRegister, Target: id, Scheduled: r, Start: r, End: r + time.Millisecond, Outcome: history.OK})
	}
	data.Servers["s1"], data.Servers["s2"], data.Servers["s3"] = s1, s2, s3
	for _, client := range []string{"client 1 → s2", "client 2 → s3"} {
		for at := 7 * time.Second; at < m.Duration; at += 30 * time.Second {
			var listed []string
			for id, r := range reg {
				if at >= r+c.cacheDelay {
					listed = append(listed, id)
				}
			}
			data.Fetchers[client] = append(data.Fetchers[client], eurekamodel.FetchEvent{At: at, OK: true, IDs: listed})
		}
	}
	if c.noOps {
		ops = nil
	}
	return synth(t, m.Clock.Real(m.Duration), data, ops)
}

func TestReplicationLagJudge(t *testing.T) {
	cached := scentest.MustConfigure(t, "replication-lag").(*replicationLag)
	uncached := scentest.MustConfigure(t, "replication-lag", "--response-cache=false").(*replicationLag)
	worst := "client visible, worst"
	tests := []struct {
		name    string
		s       *replicationLag
		c       lagCase
		verdict report.Verdict
		check   string
		want    report.Verdict
	}{
		{"response cache: up to 30 s more than the article's fetch interval", cached,
			lagCase{peerDelay: 505 * time.Millisecond, cacheDelay: 30 * time.Second}, report.Differs, worst, report.Differs},
		{"no response cache: within the article's 30 s", uncached,
			lagCase{peerDelay: 505 * time.Millisecond, cacheDelay: time.Second}, report.Reproduced, worst, report.Reproduced},
		// Must fail: a peer never gets a registration; visibility beyond the worst case; no batching delay.
		{"a peer never got a registration", cached,
			lagCase{peerDelay: 505 * time.Millisecond, cacheDelay: 30 * time.Second, missingPeer: true}, report.Outside,
			"registrations never seen on a peer or by a client", report.Outside},
		{"clients see it later than the worst case", uncached,
			lagCase{peerDelay: 505 * time.Millisecond, cacheDelay: 40 * time.Second}, report.Outside, worst, report.Outside},
		{"peers get it without the batching delay", cached,
			lagCase{peerDelay: 20 * time.Millisecond, cacheDelay: 30 * time.Second}, report.Outside, "peer visible, median", report.Outside},
		{"no registration", cached, lagCase{peerDelay: 505 * time.Millisecond, noOps: true}, report.Invalid, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judgeWant(t, tc.s, lagHistory(t, tc.c), tc.verdict, tc.check, tc.want)
		})
	}
}

// --- clock-skew ---

type skewSynth struct {
	evicted  map[string]int // false evictions per cluster label
	engaged  bool           // the run after the step refuses (self-preservation)
	peerLoss bool
	noBack   bool
	noStep   string // a cluster whose step is missing
}

func skewHistory(t *testing.T, s *clockSkew, c skewSynth) *history.History {
	m := clockOf(12, 390*time.Second)
	data := skewData{modelRun: m}
	var evs []history.Event
	step := 175 * time.Second
	for _, sc := range s.grid() {
		sc.Server = sc.Label + "-s1"
		run := eurekamodel.EvictionRun{At: step + 5*time.Second, Enabled: !(c.engaged && sc.SelfPreservation), Size: 50,
			RenewsLastMin: 100, Threshold: 86}
		for i := range c.evicted[sc.Label] {
			run.Evicted = append(run.Evicted, fmt.Sprintf("WORKER/w%02d", i+1))
			if !c.noBack {
				sc.Skewed.Events = append(sc.Skewed.Events, eurekamodel.Event{At: run.At + 20*time.Second, Kind: eurekamodel.EventRegister, ID: run.Evicted[i]})
			}
		}
		sc.Skewed.Evictions = []eurekamodel.EvictionRun{{At: 120 * time.Second, Enabled: true, Size: 50, RenewsLastMin: 100, Threshold: 86}, run}
		sc.Peers = map[string]eurekamodel.History{sc.Label + "-s2": {}, sc.Label + "-s3": {}}
		if c.peerLoss {
			sc.Peers[sc.Label+"-s2"] = eurekamodel.History{Events: []eurekamodel.Event{{At: step + time.Minute, Kind: eurekamodel.EventEvict, ID: "WORKER/w01"}}}
		}
		data.Cases = append(data.Cases, sc)
		if sc.Label != c.noStep {
			evs = append(evs, event(m, eureka.EventStepClock, history.Inject, step, sc.Server))
		}
	}
	return synth(t, m.Clock.Real(m.Duration), data, nil, evs...)
}

func TestClockSkewJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "clock-skew").(*clockSkew)
	model := map[string]int{"bug-on": 0, "bug-off": 0, "fixed-on": 8, "fixed-off": 8}
	with := func(label string, n int) map[string]int {
		out := map[string]int{}
		for k, v := range model {
			out[k] = v
		}
		out[label] = n
		return out
	}
	sp := "bug-on: self-preservation engaged at the run after the step"
	tests := []struct {
		name    string
		c       skewSynth
		verdict report.Verdict
		check   string
		want    report.Verdict
	}{
		{"the source's rules: no false self-preservation, the article differs", skewSynth{evicted: model}, report.Differs, sp, report.Differs},
		// Must fail: self-preservation engages, no premature expiry, peers evict, the evicted never return, "on" protected.
		{"self-preservation engaged", skewSynth{evicted: model, engaged: true}, report.Outside, sp, report.Outside},
		{"no premature expiry with the intended lease", skewSynth{evicted: with("fixed-off", 0)}, report.Outside,
			"fixed-off: false evictions on s1", report.Outside},
		{"expiry with the bug's double lease", skewSynth{evicted: with("bug-off", 3)}, report.Outside,
			"bug-off: false evictions on s1", report.Outside},
		{"a peer evicted", skewSynth{evicted: model, peerLoss: true}, report.Outside,
			"bug-on: evictions and cancels on the peers", report.Outside},
		{"the evicted never came back", skewSynth{evicted: model, noBack: true}, report.Outside,
			"fixed-on: evicted workers back on s1 within", report.Outside},
		{"a step missing", skewSynth{evicted: model, noStep: "fixed-on"}, report.Invalid,
			"fixed-on: false evictions on s1", report.Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judgeWant(t, s, skewHistory(t, s, tc.c), tc.verdict, tc.check, tc.want)
		})
	}
}
