package main

import (
	"testing"

	"sdchaos/report"
)

// TestMatrixCellOverRuns: a cell of repeated runs gives the median of its
// caller's failures with their range, and the fewest runs any of its checks
// held in; flags parse --runs and refuse 0.
func TestMatrixCellOverRuns(t *testing.T) {
	three, two := 3, 2
	res := &report.Result{
		Runs:        []report.RunSummary{{Seed: 1}, {Seed: 2}, {Seed: 3}},
		MetricStats: map[string]report.Stats{"keep.fail": {Runs: 3, Median: 2, Min: 0, Max: 5}},
		Checks: []report.Check{
			{Subject: "keep", Verdict: report.Reproduced, Stats: &report.Stats{Runs: 3, InBand: &three}},
			{Subject: "keep", Verdict: report.Inconclusive, Stats: &report.Stats{Runs: 3, InBand: &two}},
		},
	}
	cell := matrixCell(matrixRun{result: res}, "keep")
	if want := "2 failed (median of 3 runs, 0–5) · every check in band in ≥ 2 of 3 runs"; cell.Calls != want {
		t.Errorf("cell %q, want %q", cell.Calls, want)
	}
	if cell.Verdict != report.Inconclusive {
		t.Errorf("verdict %s, want the worst of the checks (inconclusive)", cell.Verdict)
	}
	if o, err := parseMatrix([]string{"--runs", "3", "registry-unreachable"}); err != nil || o.runs != 3 {
		t.Errorf("--runs 3: %+v %v", o, err)
	}
	if _, err := parseMatrix([]string{"--runs", "0", "registry-unreachable"}); err == nil {
		t.Error("--runs 0 accepted")
	}
}
