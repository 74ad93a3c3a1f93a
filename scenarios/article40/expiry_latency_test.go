//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestExpiryLatencyShortTTL(t *testing.T) {
	if testing.Short() {
		t.Skip("real-clock timing, about 0.6 s")
	}
	c := &expiryLatencyConfig{TTL: 200 * time.Millisecond, Runs: 8, ScanSlow: 200 * time.Millisecond, ScanFast: 50 * time.Millisecond}
	res, err := c.Run(context.Background(), NewEnv(Common{Seed: 3}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	bands := []struct {
		metric string
		lo, hi float64
	}{
		{"lazy.min_s", 0.2, 0.23}, {"lazy.max_s", 0.2, 0.23},
		{"heap.min_s", 0.2, 0.23}, {"heap.max_s", 0.2, 0.23},
		{"scan_slow.min_s", 0.2, 0.43}, {"scan_slow.max_s", 0.2, 0.43},
		{"scan_fast.min_s", 0.2, 0.28}, {"scan_fast.max_s", 0.2, 0.28},
		{"deregister.max_us", 0, 1000},
	}
	for _, b := range bands {
		if v, ok := m[b.metric]; !ok || v < b.lo || v > b.hi {
			t.Errorf("%s = %v (present %v), want within [%v, %v]", b.metric, v, ok, b.lo, b.hi)
		}
	}
	if spread := m["scan_slow.max_s"] - m["scan_slow.min_s"]; spread < 0.08 {
		t.Errorf("slow scan spread %.3f s, want ≥ 40 %% of 200 ms", spread)
	}
	if len(res.Failed()) > 0 || len(res.Conclusion) < 5 {
		t.Errorf("failed checks %v; conclusion %q", res.Failed(), res.Conclusion)
	}
}

// synthLatency returns runs of one strategy with the given latencies.
func synthLatency(lat ...time.Duration) []crashRun {
	out := make([]crashRun, len(lat))
	for i, l := range lat {
		out[i] = crashRun{latency: l, staleLen: true}
	}
	return out
}

func TestExpiryLatencyJudge(t *testing.T) {
	c := defaultExpiryLatency()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	good := func() ([][]crashRun, []float64) {
		return [][]crashRun{
			synthLatency(ms(2000), ms(2001), ms(2005)),
			synthLatency(ms(2050), ms(2500), ms(2930)),
			synthLatency(ms(2030), ms(2110), ms(2200)),
			synthLatency(ms(2000), ms(2001), ms(2002)),
		}, []float64{40, 59, 70}
	}
	cases := []struct {
		name   string
		mutate func(runs [][]crashRun, dereg []float64)
		failed []string
	}{
		{"article-like figures pass", func([][]crashRun, []float64) {}, nil},
		{"lazy 50 ms late", func(r [][]crashRun, _ []float64) { r[0][2].latency = ms(2050) }, []string{"lazy max"}},
		{"heap before the ttl", func(r [][]crashRun, _ []float64) { r[3][0].latency = ms(1990) }, []string{"heap min"}},
		{"slow scan without spread", func(r [][]crashRun, _ []float64) {
			r[1] = synthLatency(ms(2500), ms(2510), ms(2520))
		}, []string{"scan_slow spread (max − min)"}},
		{"fast scan past its interval", func(r [][]crashRun, _ []float64) { r[2][1].latency = ms(2300) }, []string{"scan_fast max"}},
		{"slow deregister", func(_ [][]crashRun, d []float64) { d[1] = 1500 }, []string{"deregister max"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runs, dereg := good()
			tc.mutate(runs, dereg)
			res := c.judge(c.arms(), runs, dereg)
			if failed := failedNames(res); !slices.Equal(failed, tc.failed) {
				t.Fatalf("failed checks %q, want %q", failed, tc.failed)
			}
			if got := res.Metrics["scan_slow.median_s"]; got != runs[1][1].latency.Seconds() {
				t.Fatalf("scan_slow.median_s = %v", got)
			}
		})
	}
}
