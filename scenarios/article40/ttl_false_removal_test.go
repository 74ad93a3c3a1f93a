//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	lease "sdchaos/registry"
)

func runTTLFalseRemoval(t *testing.T, seed int64, duration time.Duration, c *ttlFalseRemovalConfig) map[string]float64 {
	t.Helper()
	res, err := c.Run(context.Background(), NewEnv(Common{Seed: seed, Duration: duration}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed()) > 0 {
		t.Fatalf("seed %d: checks outside their bands: %+v", seed, res.Failed())
	}
	return res.Metrics
}

func near(x, want float64) bool { return math.Abs(x-want) <= 1e-9*math.Abs(want) }

func TestTTLFalseRemovalDeterministicBySeed(t *testing.T) {
	a := runTTLFalseRemoval(t, 1, 300*time.Second, defaultTTLFalseRemoval())
	b := runTTLFalseRemoval(t, 1, 300*time.Second, defaultTTLFalseRemoval())
	c := runTTLFalseRemoval(t, 2, 300*time.Second, defaultTTLFalseRemoval())
	if !maps.Equal(a, b) {
		t.Fatalf("same seed, different metrics:\n%v\n%v", a, b)
	}
	if a["removals@2"] == c["removals@2"] && a["removals@3"] == c["removals@3"] {
		t.Fatalf("seeds 1 and 2 gave the same counts: %v", a)
	}
	for ttl, k := range map[string]float64{"1.5": 2, "2": 2, "3": 3, "5": 5} {
		if a["k@"+ttl] != k {
			t.Errorf("k@%s = %v, want %v", ttl, a["k@"+ttl], k)
		}
	}
	if a["removals@1.5"] != a["removals@2"] || !near(a["theory@2"], 2700) || !near(a["theory@3"], 270) {
		t.Errorf("ttl 1.5 and 2 differ or theory wrong: %v", a)
	}
}

func TestTTLFalseRemovalJudgeFailsFarFromTheory(t *testing.T) {
	c := defaultTTLFalseRemoval()
	sim := lease.LossSim{Instances: 1000, Ticks: 300, Loss: 0.1, MaxRun: 5}
	// 2000 runs of 2 losses and none longer: k=2 count 2000 (theory 2700),
	// k=3 and k=5 zero (theory 270 and 2.7).
	res := c.judge(sim, lease.LossRuns{ByLength: []int64{0, 24000, 2000, 0, 0, 0}}, time.Millisecond)
	want := []string{"removals@1.5", "removals@2", "removals@3"}
	if failed := failedNames(res); !slices.Equal(failed, want) {
		t.Fatalf("failed checks %v, want %v (2.7 ± 4σ+5 admits 0)", failed, want)
	}
}

func TestTTLFalseRemovalMillionInstancesHour(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 instances × 3600 s: about 4 s of CPU on 2 cores")
	}
	c := defaultTTLFalseRemoval()
	c.Instances = 1_000_000
	start := time.Now()
	m := runTTLFalseRemoval(t, 1, time.Hour, c)
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("1M × 3600 s took %v, target ≤ 30 s", d)
	}
	if !near(m["theory@2"], 32_400_000) {
		t.Fatalf("theory@2 = %v", m["theory@2"])
	}
}
