package figure_test

import (
	"testing"

	"sdchaos/figure"
	"sdchaos/figure/figuretest"
)

// TestRowsDrawEachLineInItsRow: two lists that agree every second are
// drawn in rows of their own, each named on the y axis and in the legend;
// no row is an error.
func TestRowsDrawEachLineInItsRow(t *testing.T) {
	xs, ys := []float64{0, 5, 10}, []float64{3, 0, 3}
	p, err := figure.Rows("lists (a row each, 0–3)", "second", nil, nil, 3,
		figure.Row{Label: "server", Line: figure.Line{Name: "server (read every 50ms)", X: xs, Y: ys, Color: figure.Black, Step: true}},
		figure.Row{Label: "plain", Line: figure.Line{Name: "plain's client", X: xs, Y: ys, Color: figure.Green, Step: true}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Max-p.Y.Min < 1.5 {
		t.Errorf("two rows span %g of the y axis, want them apart", p.Y.Max-p.Y.Min)
	}
	d := figuretest.One(t, figuretest.Render(t, []figure.Plot{figure.One("rows", p)}), "rows")
	d.Has(t, "server", "plain", "server (read every 50ms)", "plain's client")
	if _, err := figure.Rows("none", "second", nil, nil, 3); err == nil {
		t.Error("a panel of no row was drawn")
	}
}
