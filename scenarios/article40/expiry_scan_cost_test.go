package article40

import (
	"math"
	"strconv"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

func TestExpiryScanCostRunsSmall(t *testing.T) {
	res := run(t, "times expiry passes over registries of up to 300,000 instances", "expiry-scan-cost",
		"--sizes", "3000,10000,30000,100000,300000", "--due", "10", "--passes", "5")
	for _, n := range []string{"3000", "300000"} {
		scentest.Between(t, res, "scan_removed@"+n, 10, 10)
		scentest.Between(t, res, "heap_removed@"+n, 10, 10)
	}
	if res.Metrics["scan_ms@300000"] <= res.Metrics["scan_ms@3000"] {
		t.Errorf("scan did not grow with N: %v", res.Metrics)
	}
}

// TestExpiryScanCostReproducesTheArticle runs the defaults (5 sizes from
// 10,000 to 1,000,000, 100 due): the slopes within the judge's cost-model
// bands (scanSlopeBand, heapSlopeBand: each allows one size's median pass
// off by a factor of two on a shared machine).
func TestExpiryScanCostReproducesTheArticle(t *testing.T) {
	res := run(t, "builds registries of up to 1M instances, about 10 s", "expiry-scan-cost")
	sizes := []float64{10_000, 30_000, 100_000, 300_000, 1_000_000}
	scanLo, scanHi := scanSlopeBand(sizes, 100)
	heapLo, heapHi := heapSlopeBand(sizes)
	scentest.Between(t, res, "scan.slope", scanLo, scanHi)
	scentest.Between(t, res, "heap.slope", heapLo, heapHi)
	if res.Verdict != report.Reproduced {
		t.Errorf("verdict %s, want reproduced: %s", res.Verdict, scentest.Names(res))
	}
}

// passCost is one strategy's cost (ms) and removed count at a size.
type passCost struct {
	ms      float64
	removed int
}

// costHistory records three passes per size and strategy, each of the
// given cost, and the control's walk passes (nil: none).
func costHistory(sizes []int, scan, heap, walk []passCost) *history.History {
	var ops []history.Op
	at := time.Duration(0)
	for i, n := range sizes {
		for _, st := range []struct {
			name string
			c    passCost
		}{{opScan, scan[i]}, {opHeap, heap[i]}, {opWalk, at0(walk, i)}} {
			if st.c.ms == 0 {
				continue
			}
			for p := range 3 {
				d := time.Duration(st.c.ms * float64(time.Millisecond))
				ops = append(ops, history.Op{Caller: st.name, Target: strconv.Itoa(n), Seq: p, Start: at, End: at + d,
					Count: st.c.removed, Outcome: history.OK})
				at += time.Second
			}
		}
	}
	return &history.History{Ops: ops}
}

func at0(cs []passCost, i int) passCost {
	if i < len(cs) {
		return cs[i]
	}
	return passCost{}
}

// modelCosts gives a scan of fixed + perN·N ms, a heap of perPop·log₂ N ms
// and a walk (nothing due) of perN·N ms at each size.
func modelCosts(sizes []int, fixed, perN, perPop float64) (scan, heap, walk []passCost) {
	for _, n := range sizes {
		scan = append(scan, passCost{fixed + perN*float64(n), 100})
		heap = append(heap, passCost{perPop * math.Log2(float64(n)), 100})
		walk = append(walk, passCost{perN * float64(n), 0})
	}
	return scan, heap, walk
}

func TestExpiryScanCostJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "expiry-scan-cost").(*expiryScanCost)
	sizes := []int{10_000, 30_000, 100_000, 300_000, 1_000_000}
	tests := []struct {
		name    string
		costs   func() ([]passCost, []passCost, []passCost)
		verdict report.Verdict
		check   string
	}{
		{"the article's costs: linear scan, heap ∝ N^0.36", func() ([]passCost, []passCost, []passCost) {
			sc, hp, w := modelCosts(sizes, 0, 25.58/1e6, 0.04)
			for i, n := range sizes {
				hp[i].ms = 0.156 * math.Pow(float64(n)/1e4, 0.36)
			}
			return sc, hp, w
		}, report.Reproduced, "heap: log–log slope of pass cost vs N"},
		{"Python-like: linear scan, logarithmic heap (slope 0.09, the article's 0.36)", func() ([]passCost, []passCost, []passCost) {
			return modelCosts(sizes, 0, 25.58/1e6, 0.04)
		}, report.Differs, "heap: log–log slope of pass cost vs N"},
		{"Go-like: fixed removal cost, flat heap", func() ([]passCost, []passCost, []passCost) {
			return modelCosts(sizes, 0.015, 2.4e-6, 0.001)
		}, report.Differs, "heap: log–log slope of pass cost vs N"},
		// Must fail: the article's effects absent.
		{"a wrong removal count", func() ([]passCost, []passCost, []passCost) {
			sc, hp, w := modelCosts(sizes, 0, 25.58/1e6, 0.04)
			sc[2].removed, hp[4].removed = 99, 101
			return sc, hp, w
		}, report.Outside, "scan_removed@100000"},
		{"a scan that barely grows (3× for 100× N)", func() ([]passCost, []passCost, []passCost) {
			return modelCosts(sizes, 1, 2e-6, 0.001)
		}, report.Outside, "scan: log–log slope of pass cost vs N"},
		{"a quadratic scan", func() ([]passCost, []passCost, []passCost) {
			sc, hp, w := modelCosts(sizes, 0, 0, 0.001)
			for i, n := range sizes {
				sc[i].ms = 2.5e-11 * float64(n) * float64(n)
				w[i] = passCost{sc[i].ms, 0}
			}
			return sc, hp, w
		}, report.Outside, "scan: log–log slope of pass cost vs N"},
		{"a heap that scans", func() ([]passCost, []passCost, []passCost) {
			sc, _, w := modelCosts(sizes, 0, 25.58/1e6, 0)
			hp, _, _ := modelCosts(sizes, 0, 20e-6, 0)
			return sc, hp, w
		}, report.Outside, "heap: log–log slope of pass cost vs N"},
		{"a heap as slow as the scan", func() ([]passCost, []passCost, []passCost) {
			sc, hp, w := modelCosts(sizes, 0, 25.58/1e6, 0.04)
			for i := range hp {
				hp[i].ms = 0.3 * sc[4].ms
			}
			return sc, hp, w
		}, report.Outside, "heap / scan at N=1,000,000"},
		{"a walk that does not grow with N (a fixed cost passing for a scan)", func() ([]passCost, []passCost, []passCost) {
			sc, hp, w := modelCosts(sizes, 0.015, 2.4e-6, 0.001)
			for i := range w {
				w[i].ms = 0.02
			}
			return sc, hp, w
		}, report.Outside, "scan control, nothing due: log–log slope of the walk vs N"},
		{"no control passes", func() ([]passCost, []passCost, []passCost) {
			sc, hp, _ := modelCosts(sizes, 0.015, 2.4e-6, 0.001)
			return sc, hp, nil
		}, report.Invalid, "scan control, nothing due: log–log slope of the walk vs N"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, hp, w := tc.costs()
			res := scentest.Judge(s, costHistory(sizes, sc, hp, w))
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

func TestExpiryScanCostJudgeNeedsFourSizes(t *testing.T) {
	s := scentest.MustConfigure(t, "expiry-scan-cost").(*expiryScanCost)
	sizes := []int{10_000, 100_000, 1_000_000}
	sc, hp, w := modelCosts(sizes, 0, 25.58/1e6, 0.04) // the article's three sizes only
	res := scentest.Judge(s, costHistory(sizes, sc, hp, w))
	for _, c := range []string{"scan: log–log slope of pass cost vs N", "heap: log–log slope of pass cost vs N"} {
		if v := scentest.Verdict(res, c); v != report.Invalid {
			t.Errorf("%s over 3 sizes: %s, want invalid", c, v)
		}
	}
	if res.Verdict != report.Invalid {
		t.Errorf("verdict %s, want invalid", res.Verdict)
	}
	if res := scentest.Judge(s, &history.History{}); res.Verdict != report.Invalid {
		t.Errorf("no passes: verdict %s, want invalid", res.Verdict)
	}
}

func TestScanCostBandsSeparateAtTheDefaults(t *testing.T) {
	sizes := []float64{10_000, 30_000, 100_000, 300_000, 1_000_000}
	scanLo, scanHi := scanSlopeBand(sizes, 100)
	heapLo, heapHi := heapSlopeBand(sizes)
	if !(heapLo < 0 && heapHi < scanLo && scanLo < 1 && scanHi > 1) {
		t.Errorf("heap band [%.2f, %.2f], scan band [%.2f, %.2f]: want heap ∋ 0 below scan ∋ 1", heapLo, heapHi, scanLo, scanHi)
	}
	artScan, _ := logLogFit(articleSizes, articleScanMs)
	if math.Abs(artScan-1) > 0.01 {
		t.Errorf("the article's scan slope %.3f, want ≈ 1", artScan)
	}
	if got := ratioBand(1_000_000, 100); got != 1.0/20 {
		t.Errorf("heap/scan band at 1M with 100 due = %v, want 1/20", got)
	}
}

func TestFmtThousands(t *testing.T) {
	for n, want := range map[int]string{7: "7", 1000: "1,000", 10000: "10,000", 1000000: "1,000,000"} {
		if got := fmtThousands(n); got != want {
			t.Errorf("fmtThousands(%d) = %q, want %q", n, got, want)
		}
	}
}
