package main

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/scenarios"
)

// figure draws one panel per curve, or per group of curves (Curve.Group):
// the medians with their 95 % intervals as error bars, the theory as a
// dashed line, and (for a panel of one curve) the check's band shaded.
func (sr *sweepResult) figure() (figure.Plot, error) {
	xs, names := sr.xs()
	f := figure.Plot{Name: sr.baseName(), Cols: 1}
	for _, g := range sr.groups() {
		p, err := sr.panel(g, xs, names)
		if err != nil {
			return f, err
		}
		f.Panels = append(f.Panels, p)
	}
	f.Height = vg.Inch * 2.6 * vg.Length(max(len(f.Panels), 1))
	return f, nil
}

// groups returns the curves by panel, in order of first appearance.
func (sr *sweepResult) groups() [][]scenarios.Curve {
	var out [][]scenarios.Curve
	at := map[string]int{}
	for _, c := range sr.Curves {
		key := c.Group
		if key == "" {
			key = "\x00" + c.Name
		}
		i, ok := at[key]
		if !ok {
			i, at[key] = len(out), len(out)
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// xs returns the points' x values: the numbers when every value is one,
// else their index with the values as names.
func (sr *sweepResult) xs() ([]float64, []string) {
	xs, names := make([]float64, len(sr.Points)), make([]string, len(sr.Points))
	numeric := true
	for i, p := range sr.Points {
		xs[i], names[i] = float64(p.X), p.Value
		numeric = numeric && finite(xs[i])
	}
	if numeric {
		return xs, nil
	}
	for i := range xs {
		xs[i] = float64(i)
	}
	return xs, names
}

// panel draws one group of curves (one curve, mostly).
func (sr *sweepResult) panel(g []scenarios.Curve, xs []float64, names []string) (*plot.Plot, error) {
	c := g[0]
	title := c.Name
	if c.Group != "" {
		title = c.Group
	}
	ylabel := "median of the runs"
	if c.Unit != "" {
		ylabel += " (" + c.Unit + ")"
	}
	p := figure.NewPanel(curveTitle(title), "--"+sr.Param+sr.xUnit(), ylabel)
	logY := c.Log && sr.anyPositive(g)
	if logY {
		figure.LogY(p)
	}
	if names == nil && allPositive(xs) && maxOf(xs)/minOf(xs) >= 20 {
		figure.LogX(p)
	}
	for i, c := range g {
		var col color.Color = figure.Blue
		switch {
		case c.Color != nil:
			col = c.Color
		case len(g) > 1:
			col = figure.Color(i)
		}
		if err := sr.addCurve(p, c, col, len(g) == 1, logY, xs); err != nil {
			return nil, err
		}
	}
	if names != nil {
		p.NominalX(names...)
	}
	if !logY && p.Y.Min >= 0 { // counts and times start at zero
		p.Y.Min, p.Y.Max = 0, math.Max(p.Y.Max, 1)
	}
	return p, nil
}

// anyPositive reports whether some curve of g has a positive median.
func (sr *sweepResult) anyPositive(g []scenarios.Curve) bool {
	for _, c := range g {
		med, _, _, _, _, _ := sr.series(c.Name)
		if anyPositive(med) {
			return true
		}
	}
	return false
}

// addCurve draws one curve in colour: its band when alone in its panel,
// the line through its medians, its theory and its points with error bars.
func (sr *sweepResult) addCurve(p *plot.Plot, c scenarios.Curve, col color.Color, alone, logY bool, xs []float64) error {
	med, lo, hi, theory, blo, bhi := sr.series(c.Name)
	if logY {
		if !allPositive(med) && !strings.HasSuffix(p.Title.Text, notDrawn) {
			p.Title.Text += notDrawn
		}
		// A log axis shows no zero: the theory's and the band's zeros go to
		// a tenth of the smallest positive value drawn.
		floor := 0.1 * minPositive(append(append(append([]float64(nil), med...), theory...), bhi...))
		med, theory, blo = positiveOnly(med), atLeast(theory, floor), atLeast(blo, floor)
	}
	legend := "median (95 % interval)"
	if !alone {
		legend = strings.TrimPrefix(c.Name, c.Group+", ")
	}
	if alone {
		if err := addBandArea(p, xs, blo, bhi); err != nil {
			return err
		}
	}
	if err := figure.AddLines(p, figure.Line{X: xs, Y: med, Color: col, Width: 1}); err != nil {
		return err
	}
	if !allNaN(theory) {
		name := "theory"
		if !alone {
			name = legend + ": theory"
		}
		if err := figure.AddLines(p, figure.Line{Name: name, X: xs, Y: theory, Color: col, Dashes: figure.Dashed, Width: 1.2}); err != nil {
			return err
		}
	}
	return figure.AddPoints(p, figure.Points{Name: legend, X: xs, Y: med, YLo: lo, YHi: hi, Color: col})
}

// notDrawn notes a log axis's hidden zeros in a panel's title.
const notDrawn = " (log axis: a median of 0 is not drawn)"

// xUnit is " (s)" when the swept flag holds durations.
func (sr *sweepResult) xUnit() string {
	if sr.XUnit == "" {
		return ""
	}
	return " (" + sr.XUnit + ")"
}

// series returns one curve's values at every point.
func (sr *sweepResult) series(name string) (med, lo, hi, theory, blo, bhi []float64) {
	for _, p := range sr.Points {
		v := p.value(name)
		med, lo, hi = append(med, float64(v.Median)), append(lo, float64(v.Lo)), append(hi, float64(v.Hi))
		theory, blo, bhi = append(theory, float64(v.Theory)), append(blo, float64(v.BandLo)), append(bhi, float64(v.BandHi))
	}
	return med, lo, hi, theory, blo, bhi
}

// addBandArea shades the check's band along the points where both edges are finite.
func addBandArea(p *plot.Plot, xs, lo, hi []float64) error {
	var upper, lower plotter.XYs
	for i := range xs {
		if finite(lo[i]) && finite(hi[i]) {
			lower, upper = append(lower, plotter.XY{X: xs[i], Y: lo[i]}), append(upper, plotter.XY{X: xs[i], Y: hi[i]})
		}
	}
	if len(lower) == 0 {
		return nil
	}
	if flat(lower, upper) { // an exact band: a broad light line
		l := figure.Line{Name: "band of the check (exact)", Color: figure.Light(figure.Sky, 0x90), Width: 7}
		for _, xy := range lower {
			l.X, l.Y = append(l.X, xy.X), append(l.Y, xy.Y)
		}
		return figure.AddLines(p, l)
	}
	if len(lower) == 1 { // one point: a short bar
		w := 0.05 * math.Max(math.Abs(lower[0].X), 1)
		return figure.AddBands(p, figure.Band{Name: "band of the check", X0: lower[0].X - w, X1: lower[0].X + w,
			Y0: lower[0].Y, Y1: upper[0].Y, Color: figure.Light(figure.Sky, 0x50)})
	}
	ring := append(plotter.XYs{}, lower...)
	for i := len(upper) - 1; i >= 0; i-- {
		ring = append(ring, upper[i])
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return err
	}
	poly.Color, poly.LineStyle.Width = figure.Light(figure.Sky, 0x50), 0
	p.Add(poly)
	p.Legend.Add("band of the check", poly)
	return nil
}

// flat reports whether every band has no width (a check of one value).
func flat(lower, upper plotter.XYs) bool {
	for i := range lower {
		if upper[i].Y != lower[i].Y {
			return false
		}
	}
	return true
}

func allPositive(xs []float64) bool {
	n := 0
	for _, x := range xs {
		if finite(x) {
			if x <= 0 {
				return false
			}
			n++
		}
	}
	return n > 0
}

func allNaN(xs []float64) bool {
	for _, x := range xs {
		if finite(x) {
			return false
		}
	}
	return true
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

// minPositive is the smallest positive finite value (1 when none).
func minPositive(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		if finite(x) && x > 0 {
			m = math.Min(m, x)
		}
	}
	if math.IsInf(m, 1) {
		return 1
	}
	return m
}

// atLeast raises every finite value below floor to floor.
func atLeast(xs []float64, floor float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x
		if finite(x) && x < floor {
			out[i] = floor
		}
	}
	return out
}

func anyPositive(xs []float64) bool {
	for _, x := range xs {
		if finite(x) && x > 0 {
			return true
		}
	}
	return false
}

// positiveOnly replaces every value that is not positive with NaN (a gap).
func positiveOnly(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x
		if !(x > 0) {
			out[i] = math.NaN()
		}
	}
	return out
}
