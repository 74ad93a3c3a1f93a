package figure_test

import (
	"testing"

	"sdchaos/figure"
	"sdchaos/figure/figuretest"
	"sdchaos/report"
)

// TestPerSecondMarksAFewFailures: one failed call among 40 a second is a
// pixel high; the figure marks it and writes its count, and leaves a
// second of many failures unmarked.
func TestPerSecondMarksAFewFailures(t *testing.T) {
	few := report.Series{OK: []int{40, 39, 40, 40}, Fail: []int{0, 1, 0, 0}}
	many := report.Series{OK: []int{40, 20, 20, 40}, Fail: []int{0, 20, 20, 0}}
	f, err := figure.PerSecond("per-second", []figure.Caller{{Label: "few", Series: few}, {Label: "many", Series: many}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, []figure.Plot{f}), "per-second")
	d.Has(t, "1 failed", "a few failed (marked)")
	for _, s := range d.Texts {
		if s == "20 failed" {
			t.Error("a second of 20 failed is marked as a few")
		}
	}
}
