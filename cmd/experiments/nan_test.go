package main

import (
	"fmt"
	"strings"
	"testing"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// nonFinite returns where a result's prose says NaN or Inf: a figure that
// was not measured must be said in words.
func nonFinite(res *report.Result) []string {
	var out []string
	see := func(where, s string) {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
			if w == "NaN" || w == "Inf" {
				out = append(out, fmt.Sprintf("%s: %q", where, s))
				return
			}
		}
	}
	for _, t := range res.Tables {
		for _, row := range t.Rows {
			for _, cell := range row {
				see("table "+t.Title, cell)
			}
		}
		for _, n := range t.Notes {
			see("note of "+t.Title, n)
		}
	}
	for _, c := range res.Checks {
		see("check "+c.Name, c.MeasuredText+" "+c.Cause)
	}
	for _, c := range res.Conclusion {
		see("conclusion", c)
	}
	return out
}

// TestNoNaNInProseOfAnEmptyRun judges every scenario on a history that
// recorded nothing: whatever the verdict, no figure is printed as NaN.
func TestNoNaNInProseOfAnEmptyRun(t *testing.T) {
	for _, spec := range scenarios.All() {
		t.Run(spec.Name, func(t *testing.T) {
			cfg := scentest.MustConfigure(t, spec.Name)
			res := scentest.Judge(cfg, &history.History{})
			for _, w := range nonFinite(res) {
				t.Error(w)
			}
		})
	}
}
