package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// over returns the aggregate of runs whose one check measured each of xs
// (band 0–10) and whose one metric is the same value.
func over(xs ...float64) *Result {
	var rs []*Result
	var sums []RunSummary
	for i, x := range xs {
		r := NewResult("demo")
		r.AddCheck(Band("latency", 0, 10, "s").Judge(x))
		r.Metrics["latency_s"] = x
		r.AddSamples()
		r.Finish()
		rs, sums = append(rs, r), append(sums, RunSummary{Seed: int64(i + 1)})
	}
	return Aggregate(rs, sums)
}

func TestRepeatedRunsCarryNumericStats(t *testing.T) {
	tests := []struct {
		xs                  []float64
		median, lo, hi      float64
		inBand              int
		intervalIsUnbounded bool
	}{
		{[]float64{1, 2, 3, 4, 5, 6}, 3.5, 1, 6, 6, false},
		{[]float64{1, 2, 12}, 2, 0, 0, 2, true},
	}
	for _, tc := range tests {
		res := over(tc.xs...)
		st := res.Checks[0].Stats
		if st == nil || st.Runs != len(tc.xs) || float64(st.Median) != tc.median || st.InBand == nil || *st.InBand != tc.inBand {
			t.Fatalf("%v: check stats %+v", tc.xs, st)
		}
		if tc.intervalIsUnbounded != math.IsInf(float64(st.CILo), 0) {
			t.Errorf("%v: ci_lo %v", tc.xs, st.CILo)
		}
		if !tc.intervalIsUnbounded && (float64(st.CILo) != tc.lo || float64(st.CIHi) != tc.hi) {
			t.Errorf("%v: interval %v–%v, want %v–%v", tc.xs, st.CILo, st.CIHi, tc.lo, tc.hi)
		}
		ms, ok := res.MetricStats["latency_s"]
		if !ok || ms.Median != st.Median || ms.InBand != nil {
			t.Errorf("%v: metric stats %+v", tc.xs, ms)
		}
		b, err := json.Marshal(res.Checks[0])
		if err != nil {
			t.Fatal(err)
		}
		if tc.intervalIsUnbounded && !strings.Contains(string(b), `"ci_lo":null`) {
			t.Errorf("%v: an unbounded interval is not null in JSON: %s", tc.xs, b)
		}
	}
}

func TestOneRunHasNoStats(t *testing.T) {
	r := NewResult("demo")
	r.AddCheck(Band("latency", 0, 10, "s").Judge(1))
	r.Finish()
	if r.Checks[0].Stats != nil || r.MetricStats != nil {
		t.Error("a single run carries statistics over runs")
	}
}
