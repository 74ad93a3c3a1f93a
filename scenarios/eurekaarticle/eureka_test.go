//go:build sdchaos_unconverted

package scenarios

import (
	"math"
	"testing"
	"time"

	"sdchaos/eureka"
	"sdchaos/report"
)

// eurekaTestPortBase keeps the Eureka runs apart from other packages' tests.
const eurekaTestPortBase = 10200

func TestEurekaFlagValidation(t *testing.T) {
	checkValidation(t, []validationCase{
		{"eureka-failover", nil, ""},
		{"eureka-failover", []string{"--time-scale", "0.5"}, "--time-scale (0.5)"},
		{"eureka-failover", []string{"--workers", "0"}, "--workers (0) must be at least 1"},
		{"eureka-failover", []string{"--workers", "500"}, "--workers (500)"},
		{"eureka-failover", []string{"--fetch", "15s,0s"}, "--fetch (15,0)"},
		{"eureka-failover", []string{"--fetch", "90"}, ""}, // the timeline follows the longest fetch
		{"eureka-failover", []string{"--fetch", "90", "--duration", "80s"}, "--duration (1m20s) must be at least"},
		{"eureka-failover", []string{"--peer-timeout", "0s"}, "peer timeout (0s) must be positive"},
		{"eureka-failover", []string{"--rate", "0"}, "--rate (0)"},
		{"self-preservation", nil, ""},
		{"self-preservation", []string{"--death-at", "25m"}, "--death-at (25m0s) must be within (0, --partition 20m0s)"},
		{"self-preservation", []string{"--partition-at", "30s"}, "--partition-at (30s)"},
		{"self-preservation", []string{"--after", "1m"}, "--after (1m0s)"},
		{"self-preservation", []string{"--partition", "30m"}, ""},
		{"self-preservation", []string{"--partition", "30m", "--duration", "28m30s"}, "--duration (28m30s) must be at least"},
		{"self-preservation", []string{"--workers", "1"}, "--workers (1) must be at least 2"},
		{"eureka-drill", nil, ""},
		{"eureka-drill", []string{"--dead", "1"}, "--dead (1)"},
		{"eureka-drill", []string{"--dead", "0.001"}, "--dead (0.001)"},
		{"eureka-drill", []string{"--retries", "0,-1"}, "--retries (0,-1)"},
		{"eureka-drill", []string{"--fault-at", "10s"}, "--fault-at (10s)"},
		{"eureka-drill", []string{"--latency", "-1s"}, "--latency (-1s)"},
		{"replication-lag", nil, ""},
		{"replication-lag", []string{"--instances", "200"}, "--window (1m0s) must leave more than 600ms per instance"},
		{"replication-lag", []string{"--fetchers", "0"}, "--fetchers (0)"},
		{"replication-lag", []string{"--duration", "1m"}, "--duration (1m0s) must be at least"},
		{"clock-skew", nil, ""},
		{"clock-skew", []string{"--skew", "-2m"}, "--skew (-2m0s)"},
		{"clock-skew", []string{"--lead", "90s"}, "--lead (1m30s)"},
		{"clock-skew", []string{"--observe", "10s"}, "--observe (10s)"},
		{"clock-skew", []string{"--step-after", "1m"}, "--step-after (1m0s)"},
	})
}

func TestEurekaRuleHelpers(t *testing.T) {
	if got := capRuns(50, 0.85); got != 16 {
		t.Errorf("capRuns(50) = %d, want 16 (50, 42, 35, …, 1)", got)
	}
	cfg := eureka.DefaultConfig()
	// 16 runs: 15 more after the first; 18 × 0.5 s = 0.15 min of lateness allowed.
	if lo, hi := offBand(cfg, 50); math.Abs(lo-17.4) > 1e-9 || math.Abs(hi-19.25) > 1e-9 {
		t.Errorf("offBand with the bug = %g–%g, want 17.4–19.25", lo, hi)
	}
	cfg.LeaseBug = false
	if lo, hi := offBand(cfg, 50); math.Abs(lo-15.9) > 1e-9 || math.Abs(hi-17.75) > 1e-9 {
		t.Errorf("offBand without the bug = %g–%g, want 15.9–17.75", lo, hi)
	}
	tests := []struct {
		n, k, r int
		want    float64
	}{
		{50, 10, 0, 0.8},
		{50, 10, 1, 1 - 90.0/2450},
		{50, 10, 3, 1 - 5040.0/5527200},
		{50, 2, 3, 1},
	}
	for _, tc := range tests {
		if got := distinctSuccess(tc.n, tc.k, tc.r); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("distinctSuccess(%d, %d, %d) = %g, want %g", tc.n, tc.k, tc.r, got, tc.want)
		}
	}
	if got := independentSuccess(0.2, 3); math.Abs(got-0.9984) > 1e-12 {
		t.Errorf("independentSuccess(0.2, 3) = %g", got)
	}
}

func TestPredictFalseEvictions(t *testing.T) {
	tests := []struct {
		bug    bool
		skew   time.Duration
		lo, hi int
	}{
		{true, 2 * time.Minute, 0, 0},   // ≤ 2 × 90 − 30
		{true, 170 * time.Second, 0, 8}, // between: depends on the ages
		{true, 4 * time.Minute, 8, 8},   // > 180: all stale leases, capped
		{false, 2 * time.Minute, 8, 8},  // > 90
		{false, 50 * time.Second, 0, 0}, // ≤ 90 − 30
		{false, 70 * time.Second, 0, 8}, // between
		{false, 91 * time.Second, 8, 8}, // just over the lease
		{false, 10 * time.Minute, 8, 8}, // huge
		{true, 150 * time.Second, 0, 0}, // exactly k × lease − renew
		{true, 180*time.Second + time.Second, 8, 8},
	}
	for _, tc := range tests {
		cfg := eureka.DefaultConfig()
		cfg.LeaseBug = tc.bug
		lo, hi := predictFalse(cfg, tc.skew, 5*time.Second, 50)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("bug=%v skew=%s: predicted %d–%d, want %d–%d", tc.bug, tc.skew, lo, hi, tc.lo, tc.hi)
		}
	}
}

// synthFailover builds a failover run: two schedulers, kill at 20 s, each
// switching switchAfter[i] later with the given attempts.
func synthFailover(switchAfter []time.Duration, failedTask bool, listed int) *failoverRun {
	run := &failoverRun{factor: 5, workers: 50, killAt: 20 * time.Second, killed: "http://127.0.0.1:1",
		duration: 80 * time.Second, finalLen: map[string]int{"s2": 50, "s3": 50}}
	ids := make([]string, listed)
	for i := range ids {
		ids[i] = "w"
	}
	bad := []eureka.Attempt{{Server: "http://127.0.0.1:1", Err: "refused"}, {Server: "http://127.0.0.1:1", Err: "refused"}}
	for i, f := range []time.Duration{15 * time.Second, 30 * time.Second} {
		name := schedName(f)
		evs := []eureka.FetchEvent{{At: 5 * time.Second, OK: true, IDs: ids, Attempts: []eureka.Attempt{{Server: "http://127.0.0.1:1", Status: 200}}}}
		evs = append(evs, eureka.FetchEvent{At: run.killAt + switchAfter[i], OK: true, IDs: ids,
			Attempts: append(bad, eureka.Attempt{Server: "http://127.0.0.1:2", Status: 200})})
		run.scheds = append(run.scheds, failoverSched{name: name, fetch: f, fetches: evs})
		for k := 0; k < 640; k++ {
			op := report.Op{Caller: name, Seq: k, Scheduled: time.Duration(k) * 25 * time.Millisecond, Outcome: report.OK}
			if failedTask && k == 300 {
				op.Outcome = report.Fail
			}
			run.ops = append(run.ops, op)
		}
	}
	return run
}

func TestEurekaFailoverJudge(t *testing.T) {
	s := &eurekaFailover{eu: defaultEurekaParams(5), Fetches: SecondsList{15 * time.Second, 30 * time.Second}, Rate: 40, KillAt: 20 * time.Second}
	tests := []struct {
		name       string
		run        *failoverRun
		reproduced bool
	}{
		{"article shape", synthFailover([]time.Duration{9 * time.Second, 24 * time.Second}, false, 50), true},
		{"switch slower than the fetch interval", synthFailover([]time.Duration{18 * time.Second, 24 * time.Second}, false, 50), false},
		{"a task failed", synthFailover([]time.Duration{9 * time.Second, 24 * time.Second}, true, 50), false},
		{"a worker lost", synthFailover([]time.Duration{9 * time.Second, 24 * time.Second}, false, 49), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.judge(tc.run)
			res.Finish()
			if res.Reproduced != tc.reproduced {
				t.Errorf("reproduced = %v, want %v; failed %+v", res.Reproduced, tc.reproduced, res.Failed())
			}
			if got := res.Metrics["switch_s@15"]; got != (tc.run.scheds[0].fetches[1].At - 20*time.Second).Seconds() {
				t.Errorf("switch_s@15 = %g", got)
			}
		})
	}
}

// synthDrill builds a drill where R retries fail with the given counts out of 1200.
func synthDrill(fails map[int]int) *drillRun {
	run := &drillRun{factor: 4, workers: 50, dead: []string{"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10"},
		faultAt: 40 * time.Second, faultOK: true, duration: 160 * time.Second, mc: modelClock{factor: 4},
		fetches: map[string][]eureka.FetchEvent{}, servers: map[string]eureka.ControlStats{}}
	for r, f := range fails {
		name := retryName(r)
		for k := 0; k < 1200; k++ {
			// real offsets: 10 s + k × 25 ms ⇒ model 40 s … 160 s
			op := report.Op{Caller: name, Seq: k, Scheduled: 10*time.Second + time.Duration(k)*25*time.Millisecond, Outcome: report.OK}
			if k < f {
				op.Outcome = report.Fail
			}
			run.ops = append(run.ops, op)
		}
	}
	return run
}

func TestEurekaDrillJudge(t *testing.T) {
	s := &eurekaDrill{eu: defaultEurekaParams(4), Dead: 0.2, Latency: 200 * time.Millisecond, Retries: IntList{0, 1, 3},
		Rate: 40, FaultAt: 40 * time.Second, Fetch: 30 * time.Second}
	tests := []struct {
		name       string
		fails      map[int]int
		reproduced bool
	}{
		{"theory", map[int]int{0: 240, 1: 44, 3: 1}, true},
		{"no retries fail too little", map[int]int{0: 100, 1: 44, 3: 1}, false},
		{"3 retries below 99 %", map[int]int{0: 240, 1: 44, 3: 15}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.judge(synthDrill(tc.fails))
			res.Finish()
			if res.Reproduced != tc.reproduced {
				t.Errorf("reproduced = %v, want %v; failed %+v", res.Reproduced, tc.reproduced, res.Failed())
			}
			if got, want := res.Metrics["success@0"], 1-float64(tc.fails[0])/1200; math.Abs(got-want) > 1e-9 {
				t.Errorf("success@0 = %g, want %g", got, want)
			}
		})
	}
}

func TestSelfPreservationHelpers(t *testing.T) {
	h := eureka.History{Evictions: []eureka.EvictionRun{
		{At: 60 * time.Second, Enabled: true, Size: 50},
		{At: 120 * time.Second, Enabled: true, Size: 50, Evicted: []string{"a", "b"}},
		{At: 180 * time.Second, Enabled: false, Size: 48},
		{At: 240 * time.Second, Enabled: true, Size: 2, Evicted: []string{"c", "d"}},
	}}
	if at, ok := engagedAt(h, 100*time.Second); !ok || at != 180*time.Second {
		t.Errorf("engagedAt = %s, %v", at, ok)
	}
	if _, ok := engagedAt(h, 200*time.Second); ok {
		t.Error("engagedAt found a refusal after the last one")
	}
	if n := evictedIn(h, 100*time.Second, 250*time.Second); n != 4 {
		t.Errorf("evictedIn = %d, want 4", n)
	}
	if at, ok := emptiedAt(h, 0); !ok || at != 240*time.Second {
		t.Errorf("emptiedAt = %s, %v", at, ok)
	}
	evs := []eureka.FetchEvent{{At: 10 * time.Second, OK: true, IDs: []string{"x", "dead"}},
		{At: 20 * time.Second, OK: false}, {At: 30 * time.Second, OK: true, IDs: []string{"x"}}}
	if at, ok := listedUntil(evs, "dead", 5*time.Second); !ok || at != 30*time.Second {
		t.Errorf("listedUntil = %s, %v", at, ok)
	}
}

// runEureka runs a Eureka scenario for real (server processes on loopback)
// and requires it to reproduce.
func runEureka(t *testing.T, name string, args ...string) *report.Result {
	t.Helper()
	start := time.Now()
	res := runScenarioAt(t, eurekaTestPortBase, "runs Eureka server processes", name, args...)
	t.Logf("%s ran in %.1f s", name, time.Since(start).Seconds())
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	return res
}

func TestEurekaFailoverRuns(t *testing.T) {
	res := runEureka(t, "eureka-failover", "--time-scale", "10")
	between(t, res, "switch_s@15", 0, 16)
	between(t, res, "switch_s@30", 0, 31)
	between(t, res, "failed_attempts@15", 2, 2)
	between(t, res, "tasks.fail", 0, 0)
	between(t, res, "workers_lost", 0, 0)
}

func TestSelfPreservationRuns(t *testing.T) {
	res := runEureka(t, "self-preservation", "--time-scale", "60")
	between(t, res, "on.engaged_min", 0, 2.1)
	between(t, res, "on.evicted", 0, 0)
	between(t, res, "off.evicted", 50, 50)
	between(t, res, "off.all_evicted_min", 17.4, 19.25)
	between(t, res, "dead_listed_min", 15, 18.2)
	between(t, res, "r3.fail", 0, 0)
}

func TestEurekaDrillRuns(t *testing.T) {
	res := runEureka(t, "eureka-drill", "--time-scale", "8", "--duration", "100s")
	lo, hi := binomialBand(0.8, int(res.Metrics["tasks@0"]), 0.005)
	between(t, res, "success@0", lo, hi)
	between(t, res, "success@3", 0.99, 1)
	between(t, res, "theory@1", 0.96, 0.96)
}

func TestReplicationLagRuns(t *testing.T) {
	res := runEureka(t, "replication-lag", "--time-scale", "8", "--instances", "20", "--window", "40s")
	between(t, res, "peer_visible_ms.p50", 500, 750)
	between(t, res, "peer_visible_ms.p99", 500, 750)
	between(t, res, "client_visible_s.max", 30.5, 61.5)
}

func TestClockSkewRuns(t *testing.T) {
	res := runEureka(t, "clock-skew", "--time-scale", "20", "--lease-bug=false", "--compare-lease=false")
	between(t, res, "on.false_evictions", 8, 8)
	between(t, res, "off.false_evictions", 8, 8)
	between(t, res, "on.peer_evictions", 0, 0)
	between(t, res, "on.back_s.max", 0, 32)
}
