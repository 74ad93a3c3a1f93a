package main

import (
	"testing"

	"sdchaos/report"
)

// TestSummaryInIndexOrder: a summary lists every stored run in the index's
// order, a run it lacked with a row from its report, and keeps a row of a
// run that is not stored after them.
func TestSummaryInIndexOrder(t *testing.T) {
	have := []summaryRow{{Name: "b", Verdict: report.Reproduced}, {Name: "failed", Error: "could not start"}}
	stored := []storedRun{{"a", &report.Result{Scenario: "a", Verdict: report.Differs}}, {"b", &report.Result{Verdict: report.Outside}}}
	got := summaryInIndexOrder(have, stored)
	if len(got) != 3 || got[0].Name != "a" || got[0].Verdict != report.Differs || got[1].Name != "b" || got[1].Verdict != report.Reproduced || got[2].Name != "failed" {
		t.Errorf("rows = %+v, want a (from its report), b (as the summary had it), failed", got)
	}
}
