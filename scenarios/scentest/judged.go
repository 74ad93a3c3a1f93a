package scentest

import (
	"testing"

	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// WantVerdict requires the result's verdict to be want and, when check is
// not empty, the named check's too; no check may differ from the article
// without a cause.
func WantVerdict(t *testing.T, res *report.Result, want report.Verdict, check string) {
	t.Helper()
	if res.Verdict != want {
		t.Errorf("verdict %s, want %s: %s", res.Verdict, want, Names(res))
	}
	if check != "" {
		if v := Verdict(res, check); v != want {
			t.Errorf("check %q: %s, want %s", check, v, want)
		}
	}
	NoUnexplainedDifference(t, res)
}

// PlotsOf draws the named scenario's plots (its defaults) from h and
// returns the one called name.
func PlotsOf(t *testing.T, scenario string, h *history.History, name string) figuretest.Doc {
	t.Helper()
	plots, err := MustConfigure(t, scenario).(scenarios.Plotter).Plots(h)
	if err != nil {
		t.Fatal(err)
	}
	return figuretest.One(t, figuretest.Render(t, plots), name)
}
