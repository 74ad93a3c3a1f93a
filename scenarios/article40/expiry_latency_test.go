package article40

import (
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// TestExpiryLatencyRunsWithAShortTTL runs the scenario with a 200 ms ttl
// and requires the judge's bands: every strategy's min and max within
// [ttl, ttl + scan interval + latencySlack] (lazy and heap collect at once,
// a scan at its next tick), the deregister control within latencySlack.
func TestExpiryLatencyRunsWithAShortTTL(t *testing.T) {
	const ttl, slow, fast = 200 * time.Millisecond, 200 * time.Millisecond, 50 * time.Millisecond
	res := run(t, "real-clock timing, about 0.6 s", "expiry-latency",
		"--ttl", ttl.String(), "--crashes", "8", "--scan-slow", slow.String(), "--scan-fast", fast.String(), "--seed", "3")
	for key, interval := range map[string]time.Duration{"lazy": 0, "heap": 0, "scan_slow": slow, "scan_fast": fast} {
		for _, stat := range []string{".min_s", ".max_s"} {
			scentest.Between(t, res, key+stat, ttl.Seconds(), (ttl + interval + latencySlack).Seconds())
		}
	}
	scentest.Between(t, res, "deregister.max_us", 0, float64(latencySlack/time.Microsecond))
	if len(res.Conclusion) < 5 {
		t.Errorf("conclusion %q", res.Conclusion)
	}
}

// TestExpiryLatencyReproducesTheArticle runs the article's setup: the slow
// scan's spread (max − min) of 20 runs within [r × 1 s, 1 s + latencySlack],
// r = uniformRangeLow(20) (the range of 20 uniform phases falls below it
// with probability 10⁻⁴).
func TestExpiryLatencyReproducesTheArticle(t *testing.T) {
	res := run(t, "real-clock timing, about 3 s", "expiry-latency")
	scentest.Between(t, res, "scan_slow.spread_s", uniformRangeLow(20), (time.Second + latencySlack).Seconds())
	if res.Verdict != report.Reproduced {
		t.Errorf("verdict %s, want reproduced: %s", res.Verdict, scentest.Names(res))
	}
}

// TestExpiryLatencyPaceGate: a watch whose timer woke, or whose poll came,
// later than half the slack makes the run invalid, not outside.
func TestExpiryLatencyPaceGate(t *testing.T) {
	s := scentest.MustConfigure(t, "expiry-latency").(*expiryLatency)
	tests := []struct {
		name       string
		wake, poll time.Duration
		ok         bool
	}{
		{"on time", time.Millisecond, 2 * time.Millisecond, true},
		{"timer woke late", 20 * time.Millisecond, 0, false},
		{"a poll came late", 0, 16 * time.Millisecond, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := latencyHistory(articleLatencies(), false, 40, 59)
			h.Ops = append(h.Ops, history.Op{Caller: opPace, Scheduled: time.Second, Start: time.Second + tc.wake,
				Count: int(tc.poll / time.Microsecond), Outcome: history.OK})
			res := scentest.Judge(s, h)
			if want := map[bool]report.Verdict{true: report.Reproduced, false: report.Invalid}[tc.ok]; res.Verdict != want {
				t.Errorf("verdict %s, want %s (gates %v)", res.Verdict, want, res.Gates)
			}
		})
	}
}

// latencyRuns are one strategy's latencies in ms.
type latencyRuns map[string][]int

// articleLatencies are article-shaped runs (lazy and scans as the article
// measured them, heap like lazy).
func articleLatencies() latencyRuns {
	return latencyRuns{
		"lazy":      {2000, 2001, 2005, 2010, 2010},
		"scan_slow": {2050, 2300, 2510, 2700, 2930},
		"scan_fast": {2030, 2080, 2110, 2150, 2200},
		"heap":      {2000, 2001, 2002, 2001, 2003},
	}
}

// latencyHistory records the runs as the plan does, lazy with a stale Len
// unless freshLen, plus deregister calls of the given µs.
func latencyHistory(runs latencyRuns, freshLen bool, deregUs ...int) *history.History {
	var ops []history.Op
	for key, lats := range runs {
		for j, ms := range lats {
			n := 0
			if key == "lazy" && !freshLen {
				n = 1
			}
			at := time.Duration(j) * time.Second
			ops = append(ops, history.Op{Caller: key, Seq: j, Start: at, End: at + time.Duration(ms)*time.Millisecond,
				Count: n, Outcome: history.OK})
		}
	}
	for i, us := range deregUs {
		ops = append(ops, history.Op{Caller: opDeregister, Seq: i, End: time.Duration(us) * time.Microsecond, Outcome: history.OK})
	}
	return &history.History{Ops: ops, Timeline: 10 * time.Second}
}

func TestExpiryLatencyJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "expiry-latency").(*expiryLatency)
	dereg := []int{40, 59, 70}
	tests := []struct {
		name    string
		mutate  func(r latencyRuns)
		fresh   bool
		dereg   []int
		verdict report.Verdict
		check   string
	}{
		{"article-like figures", func(latencyRuns) {}, false, dereg, report.Reproduced, "scan_slow: spread (max − min)"},
		// Must fail: the article's effects absent.
		{"lazy 50 ms late", func(r latencyRuns) { r["lazy"][2] = 2050 }, false, dereg, report.Outside, "lazy: max"},
		{"heap before the ttl", func(r latencyRuns) { r["heap"][0] = 1990 }, false, dereg, report.Outside, "heap: min"},
		{"slow scan without spread", func(r latencyRuns) { r["scan_slow"] = []int{2500, 2505, 2510, 2515, 2520} },
			false, dereg, report.Outside, "scan_slow: spread (max − min)"},
		{"slow scan always at the ttl", func(r latencyRuns) { r["scan_slow"] = []int{2000, 2001, 2002, 2003, 2004} },
			false, dereg, report.Outside, "scan_slow: median"},
		{"fast scan past its interval", func(r latencyRuns) { r["scan_fast"][1] = 2300 }, false, dereg, report.Outside, "scan_fast: max"},
		{"lazy's Len is not stale", func(latencyRuns) {}, true, dereg, report.Outside, "lazy: runs where Len() still counted the instance Lookup dropped"},
		{"deregister left to the next 200 ms scan tick", func(latencyRuns) {}, false, []int{40, 200_000}, report.Outside, "deregister: slowest call until gone"},
		{"no scan run", func(r latencyRuns) { delete(r, "scan_fast") }, false, dereg, report.Invalid, "scan_fast: median"},
		{"no deregister call", func(latencyRuns) {}, false, nil, report.Invalid, "deregister: slowest call until gone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := articleLatencies()
			tc.mutate(runs)
			res := scentest.Judge(s, latencyHistory(runs, tc.fresh, tc.dereg...))
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

func TestExpiryLatencyJudgeDeregisterStillListed(t *testing.T) {
	s := scentest.MustConfigure(t, "expiry-latency").(*expiryLatency)
	h := latencyHistory(articleLatencies(), false, 40, 59)
	h.Ops[len(h.Ops)-1].Outcome = history.Fail
	res := scentest.Judge(s, h)
	if v := scentest.Verdict(res, "deregister: calls after which Lookup still listed the instance"); v != report.Outside {
		t.Errorf("an instance listed after Deregister: %s, want outside", v)
	}
}

func TestExpiryLatencyArticleFiguresOnlyInTheArticleSetup(t *testing.T) {
	s := scentest.MustConfigure(t, "expiry-latency", "--ttl", "3s").(*expiryLatency)
	runs := latencyRuns{}
	for k, lats := range articleLatencies() {
		for _, ms := range lats {
			runs[k] = append(runs[k], ms+1000)
		}
	}
	res := scentest.Judge(s, latencyHistory(runs, false, 50))
	if res.Verdict != report.Reproduced {
		t.Errorf("ttl 3 s: verdict %s, want reproduced (the article's 2 s figures are not judged): %s", res.Verdict, scentest.Names(res))
	}
}

func TestOrderStatisticBands(t *testing.T) {
	lo, hi := uniformMedianBand(20)
	if lo < 0.1 || lo > 0.25 || hi < 0.75 || hi > 0.9 || lo+hi < 0.99 || lo+hi > 1.01 {
		t.Errorf("median band of 20 uniforms = [%.3f, %.3f], want about [0.17, 0.83], symmetric", lo, hi)
	}
	if r := uniformRangeLow(20); r < 0.5 || r > 0.6 {
		t.Errorf("range low of 20 uniforms = %.3f, want about 0.55 (20r¹⁹ − 19r²⁰ = 10⁻⁴)", r)
	}
	if r := uniformRangeLow(1); r != 0 {
		t.Errorf("range low of 1 uniform = %v, want 0", r)
	}
}
