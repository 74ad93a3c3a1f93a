package article40

import (
	"testing"

	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// TestPlotsOfArticle40 renders each scenario's plot from a synthetic
// history (article 40 has no fault timeline: nothing is shaded).
func TestPlotsOfArticle40(t *testing.T) {
	sizes := []int{10_000, 30_000, 100_000, 300_000, 1_000_000}
	scan, heap, walk := modelCosts(sizes, 0, 25.58/1e6, 0.04)
	tests := []struct {
		scenario, figure string
		history          func(t *testing.T) *history.History
		texts            []string
	}{
		{"expiry-latency", "expiry-latency", func(*testing.T) *history.History { return latencyHistory(articleLatencies(), false, 40) },
			[]string{"lazy (at lookup)", "scan every 1s", "scan every 200ms", "min-heap timer", "rule: ≤ one scan interval + 30 ms",
				"article: min, median, max", "after the ttl (ms)"}},
		{"ttl-false-removal", "false-removals", func(t *testing.T) *history.History {
			return removalHistory(t, articleRuns, [4]int64{2700, 2700, 270, 0})
		},
			[]string{"exact expectation, 1000 instances", "simulation (1000 instances)", "real registry (1000 instances)",
				"article (1000 instances, 300 s, 10 % loss)", "article's theory N·T·loss^k·(1 − loss): ≤ 1.3 % off the exact", "ttl (s)", "false removals (log)",
				"False removals of live instances vs ttl (1000 instances, 300 heartbeats of 1s, 0.1 loss) — a count of 0 is not drawn"}},
		{"expiry-scan-cost", "scan-cost", func(*testing.T) *history.History { return costHistory(sizes, scan, heap, walk) },
			[]string{"full scan (fit: slope 1.00, band 0.50–1.62)…", "min-heap (fit: slope…", "control: walk, nothing due (fit: slope 1.00…",
				"article (Python): full scan", "article (Python): min-heap", "instances N (log)"}},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			cfg := scentest.MustConfigure(t, tc.scenario)
			plots, err := cfg.(scenarios.Plotter).Plots(tc.history(t))
			if err != nil {
				t.Fatal(err)
			}
			figuretest.One(t, figuretest.Render(t, plots), tc.figure).Has(t, tc.texts...)
		})
	}
}

// TestPlotsNeedTheirData: a history without the scenario's data is an error, not an empty picture.
func TestPlotsNeedTheirData(t *testing.T) {
	for _, name := range []string{"ttl-false-removal", "expiry-scan-cost"} {
		if _, err := scentest.MustConfigure(t, name).(scenarios.Plotter).Plots(&history.History{}); err == nil {
			t.Errorf("%s drew a history without data", name)
		}
	}
}
