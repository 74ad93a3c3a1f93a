package main

import (
	"math"
	"testing"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// TestSweepFigureSaysWhatWasDrawn: a sweep of one run a point says so on
// its axis and in its legend and draws no interval; six runs a point are
// "median of 6 runs (95 % interval)"; fewer than six give a median and
// say there is no interval.
func TestSweepFigureSaysWhatWasDrawn(t *testing.T) {
	c := scenarios.Curve{Name: "failed"}
	sweepOf := func(runs ...int) *sweepResult {
		sr := &sweepResult{Curves: []scenarios.Curve{c}}
		for i, n := range runs {
			sr.Points = append(sr.Points, pointResult{X: report.Number(i), Values: map[string]curveValue{
				c.Name: {Median: 1, Lo: 0, Hi: 2, Theory: report.Number(math.NaN()), BandLo: report.Number(math.NaN()), BandHi: report.Number(math.NaN()), N: n}}})
		}
		return sr
	}
	for _, tc := range []struct {
		runs         []int
		axis, legend string
		intervals    int
	}{
		{[]int{1, 1}, "one run a point", "one run a point", 0},
		{[]int{6, 6}, "median of 6 runs", "median of 6 runs (95 % interval)", 2},
		{[]int{3, 3}, "median of 3 runs", "median of 3 runs (too few for an interval)", 0},
		{[]int{1, 6}, "median of 1–6 runs", "median of 1–6 runs (95 % interval from 6)", 1},
	} {
		sr := sweepOf(tc.runs...)
		w := sr.runsWord(sr.Curves)
		if w.axis != tc.axis || w.legend != tc.legend {
			t.Errorf("runs %v: axis %q, legend %q; want %q, %q", tc.runs, w.axis, w.legend, tc.axis, tc.legend)
		}
		lo, _ := sr.intervalsOnly(c.Name, []float64{0, 0}, []float64{2, 2})
		n := 0
		for _, x := range lo {
			if !math.IsNaN(x) {
				n++
			}
		}
		if n != tc.intervals {
			t.Errorf("runs %v: %d intervals kept, want %d", tc.runs, n, tc.intervals)
		}
	}
}
