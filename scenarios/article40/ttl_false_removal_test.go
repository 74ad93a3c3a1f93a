package article40

import (
	"context"
	"maps"
	"math"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/internal/machinelock"
	"sdchaos/registry"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// runRemoval runs ttl-false-removal in-process (it is a fast, virtual-time
// run) and judges it.
func runRemoval(t *testing.T, args ...string) *report.Result {
	t.Helper()
	cfg, c, err := scentest.Configure(t, "ttl-false-removal", args...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := cfg.Run(context.Background(), scenarios.NewEnv(c, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	res := scentest.Judge(cfg, h)
	if res.Verdict != report.Reproduced {
		t.Fatalf("%v: verdict %s: %s", args, res.Verdict, scentest.Names(res))
	}
	return res
}

func near(x, want float64) bool { return math.Abs(x-want) <= 1e-9*math.Abs(want) }

func TestTTLFalseRemovalDeterministicBySeed(t *testing.T) {
	a, b, c := runRemoval(t, "--seed", "1").Metrics, runRemoval(t, "--seed", "1").Metrics, runRemoval(t, "--seed", "2").Metrics
	if !maps.Equal(a, b) {
		t.Fatalf("same seed, different metrics:\n%v\n%v", a, b)
	}
	if a["removals@2"] == c["removals@2"] && a["registry_removals@2"] == c["registry_removals@2"] {
		t.Fatalf("seeds 1 and 2 gave the same counts: %v", a)
	}
	for ttl, k := range map[string]float64{"1.5": 2, "2": 2, "3": 3, "5": 5} {
		if a["k@"+ttl] != k {
			t.Errorf("k@%s = %v, want %v", ttl, a["k@"+ttl], k)
		}
	}
	if a["removals@1.5"] != a["removals@2"] || a["registry_removals@1.5"] != a["registry_removals@2"] {
		t.Errorf("ttl 1.5 and 2 (same k, same loss pattern) differ: %v", a)
	}
	if !near(a["theory@2"], 2700) || !near(a["theory@3"], 270) {
		t.Errorf("theory wrong: %v", a)
	}
	if a["removals@2"] == a["registry_removals@2"] {
		t.Errorf("the registry and the simulation drew the same loss pattern (%v): they must be independent", a["removals@2"])
	}
}

func TestTTLFalseRemovalMillionInstancesHour(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 instances × 3600 s: about 5–10 s of CPU on 2 cores")
	}
	// Both cores for several seconds: not beside another package's real-etcd run.
	defer machinelock.Take(t)()
	start := time.Now()
	m := runRemoval(t, "--instances", "1000000", "--duration", "3600s").Metrics
	// Its speed is measured by BenchmarkLossSim1Mx3600 in package registry, not here.
	t.Logf("1M × 3600 s (and the registry's 1000 × 3600) took %v", time.Since(start).Round(time.Millisecond))
	if !near(m["theory@2"], 32_400_000) {
		t.Fatalf("theory@2 = %v", m["theory@2"])
	}
}

// removalHistory is a ttl-false-removal history at the article's setup: the
// simulation's loss runs and the registry's counts per ttl (1.5, 2, 3, 5 s).
func removalHistory(t *testing.T, byLength []int64, reg [4]int64) *history.History {
	t.Helper()
	ttls := []time.Duration{1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second}
	rec := removalRecord{
		Sim:      simRecord{Instances: 1000, Ticks: 300, Loss: 0.1, ByLength: byLength},
		Registry: registryRecord{Instances: 1000, Ticks: 300, Strategy: "scan"},
	}
	for i, ttl := range ttls {
		rec.Registry.PerTTL = append(rec.Registry.PerTTL, registryCount{TTL: ttl, Removals: reg[i], Reregistrations: reg[i]})
	}
	h := &history.History{}
	if err := h.SetData(rec); err != nil {
		t.Fatal(err)
	}
	return h
}

// articleRuns are loss runs giving about the article's counts: 2652 runs of
// ≥ 2 losses, 263 of ≥ 3, 3 of ≥ 5.
var articleRuns = []int64{0, 24000, 2652 - 263, 263 - 20, 20 - 3, 3}

func TestTTLFalseRemovalJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "ttl-false-removal").(*ttlFalseRemoval)
	exact := func(k int) int64 { return int64(math.Round(registry.ExpectedRemovals(1000, 300, k, 0.1))) }
	tests := []struct {
		name    string
		sim     []int64
		reg     [4]int64
		verdict report.Verdict
		check   string
	}{
		{"article counts on both", articleRuns, [4]int64{2700, 2700, 270, 2}, report.Reproduced, "registry − simulation at ttl 3 s"},
		// Must fail: the article's effect absent.
		{"a registry that never removes", articleRuns, [4]int64{}, report.Outside, "registry: false removals at ttl 2 s"},
		{"a registry that removes at k+1", articleRuns, [4]int64{exact(3), exact(3), exact(4), exact(6)}, report.Outside,
			"registry − simulation at ttl 2 s"},
		{"a registry that removes at k−1", articleRuns, [4]int64{exact(1), exact(1), exact(2), exact(4)}, report.Outside,
			"registry: false removals at ttl 3 s"},
		{"a simulation far from theory", []int64{0, 24000, 2000, 0, 0, 0}, [4]int64{2700, 2700, 270, 2}, report.Outside,
			"simulation: false removals at ttl 3 s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := scentest.Judge(s, removalHistory(t, tc.sim, tc.reg))
			if res.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s: %s", res.Verdict, tc.verdict, scentest.Names(res))
			}
			if v := scentest.Verdict(res, tc.check); v != tc.verdict {
				t.Errorf("check %q: %s, want %s", tc.check, v, tc.verdict)
			}
			scentest.NoUnexplainedDifference(t, res)
		})
	}
}

func TestTTLFalseRemovalJudgeInvalidAndReregistration(t *testing.T) {
	s := scentest.MustConfigure(t, "ttl-false-removal").(*ttlFalseRemoval)
	if res := scentest.Judge(s, &history.History{}); res.Verdict != report.Invalid {
		t.Errorf("no data: verdict %s, want invalid", res.Verdict)
	}
	h := removalHistory(t, articleRuns, [4]int64{2700, 2700, 270, 2})
	var rec removalRecord
	if err := h.DataInto(&rec); err != nil {
		t.Fatal(err)
	}
	rec.Registry.PerTTL[2].Reregistrations = 0 // removed instances never came back
	if err := h.SetData(rec); err != nil {
		t.Fatal(err)
	}
	res := scentest.Judge(s, h)
	if v := scentest.Verdict(res, "registry: removals not re-registered (beyond those down at the end)"); v != report.Outside {
		t.Errorf("removed instances that never re-registered: %s, want outside", v)
	}
}

// TestTTLFalseRemovalRegistryFindsK: a real registry run with a ttl of
// exactly 2 heartbeats and one just above (2.001 s → k = 3) counts as the
// rule's k predicts, without the shared ttl → k mapping.
func TestTTLFalseRemovalRegistryFindsK(t *testing.T) {
	res := runRemoval(t, "--ttls", "2,2.001", "--registry-instances", "3000", "--instances", "3000")
	r2, r3 := res.Metrics["registry_removals@2"], res.Metrics["registry_removals@2.001"]
	if r2 < 5*r3 || r3 == 0 {
		t.Errorf("registry: ttl 2 s removed %v, 2.001 s %v; want about tenfold fewer at 2.001 s (k 2 → 3)", r2, r3)
	}
}
