package main

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// figure draws one panel per curve, or per group of curves (Curve.Group):
// each point's value (one run's, or the median of its runs with the 95 %
// interval as an error bar where there were runs enough for one), unjoined,
// the theory as a dashed step at each point, and (for a panel of one
// curve) the check's band shaded. Nothing joins two points: the values
// between them were not measured (ttl-false-removal's count is a
// staircase in the ttl, not a slope).
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
	// one x range for every panel (a curve measured at fewer points does
	// not stretch its own), a little wider than the points so that the
	// first and last are drawn whole
	figure.ShareX(f.Panels...)
	for _, p := range f.Panels {
		figure.Pad(p, xPad, 0)
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
	ylabel := sr.runsWord(g).axis
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
		if err := sr.addCurve(p, c, col, nested(i, len(g)), logY, xs); err != nil {
			return nil, err
		}
	}
	if names != nil {
		p.NominalX(names...)
	}
	if !logY && p.Y.Min >= 0 { // counts and times start at zero
		p.Y.Min, p.Y.Max = 0, math.Max(p.Y.Max, 1)
	}
	figure.Pad(p, 0, 0.04) // the points at the top and at zero drawn whole
	return p, nil
}

// curveSize is how large a curve's dots are drawn.
type curveSize struct {
	alone  bool // the only curve of its panel
	radius float64
}

// nested sizes the i-th of n curves of a panel: where curves coincide (two
// strategies that both never fail), each is drawn with smaller dots over
// the one before, so that all of them show.
func nested(i, n int) curveSize {
	if n == 1 {
		return curveSize{alone: true, radius: 3}
	}
	k := float64(n - 1 - i)
	return curveSize{radius: 3 + k*math.Min(1.5, 4.5/float64(n-1))}
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
// its theory and its points with error bars, none of them joined.
func (sr *sweepResult) addCurve(p *plot.Plot, c scenarios.Curve, col color.Color, sz curveSize, logY bool, xs []float64) error {
	alone := sz.alone
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
	legend := sr.runsWord([]scenarios.Curve{c}).legend
	if !alone {
		legend = strings.TrimPrefix(c.Name, c.Group+", ")
	}
	if alone {
		if err := addBandArea(p, xs, blo, bhi); err != nil {
			return err
		}
	}
	if !allNaN(theory) {
		name := "theory"
		if !alone {
			name = legend + ": theory"
		}
		if err := addTheorySteps(p, name, xs, theory, col); err != nil {
			return err
		}
	}
	lo, hi = sr.intervalsOnly(c.Name, lo, hi)
	return figure.AddPoints(p, figure.Points{Name: legend, X: xs, Y: med, YLo: lo, YHi: hi, Color: col, Radius: sz.radius})
}

// addTheorySteps draws the theory at each point as a dashed step from
// halfway to the previous point to halfway to the next (as the band), the
// steps not joined: the theory is known at the points only.
func addTheorySteps(p *plot.Plot, name string, xs, theory []float64, col color.Color) error {
	_, logX := p.X.Scale.(plot.LogScale)
	for i := range xs {
		if !finite(theory[i]) {
			continue
		}
		x0, x1 := stepEdges(xs, i, logX)
		l := figure.Line{Name: name, X: []float64{x0, x1}, Y: []float64{theory[i], theory[i]}, Color: col, Dashes: figure.Dashed, Width: 1.2}
		if err := figure.AddLines(p, l); err != nil {
			return err
		}
		name = "" // one legend entry
	}
	return nil
}

// intervalsOnly keeps a curve's 95 % interval at the points measured by
// enough runs for one (report.MinRunsForInterval), NaN elsewhere.
func (sr *sweepResult) intervalsOnly(name string, lo, hi []float64) ([]float64, []float64) {
	outLo, outHi := make([]float64, len(lo)), make([]float64, len(hi))
	for i, p := range sr.Points {
		outLo[i], outHi[i] = math.NaN(), math.NaN()
		if p.value(name).N >= report.MinRunsForInterval {
			outLo[i], outHi[i] = lo[i], hi[i]
		}
	}
	return outLo, outHi
}

// runsText is what a panel's axis and a curve's legend say was drawn.
type runsText struct{ axis, legend string }

// runsWord says what the points of curves g are: one run's value, the
// median of n runs (with its interval from report.MinRunsForInterval on),
// or medians of differing numbers of runs.
func (sr *sweepResult) runsWord(g []scenarios.Curve) runsText {
	lo, hi := math.MaxInt, 0
	for _, c := range g {
		for _, p := range sr.Points {
			if n := p.value(c.Name).N; n > 0 {
				lo, hi = min(lo, n), max(hi, n)
			}
		}
	}
	switch {
	case hi == 0:
		return runsText{"no valid run", "no valid run"}
	case hi == 1:
		return runsText{"one run a point", "one run a point"}
	case lo == hi && lo >= report.MinRunsForInterval:
		return runsText{fmt.Sprintf("median of %d runs", lo), fmt.Sprintf("median of %d runs (95 %% interval)", lo)}
	case lo == hi:
		return runsText{fmt.Sprintf("median of %d runs", lo), fmt.Sprintf("median of %d runs (too few for an interval)", lo)}
	case hi >= report.MinRunsForInterval:
		return runsText{fmt.Sprintf("median of %d–%d runs", lo, hi), fmt.Sprintf("median of %d–%d runs (95 %% interval from %d)", lo, hi, report.MinRunsForInterval)}
	}
	return runsText{fmt.Sprintf("median of %d–%d runs", lo, hi), fmt.Sprintf("median of %d–%d runs (too few for an interval)", lo, hi)}
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

// addBandArea shades the check's band at each point where both edges are
// finite, as a step from halfway to the previous point to halfway to the
// next (the band is known at the points only: a slope between two would
// invent the values between them). An exact band (a check of one value)
// is a broad light line.
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
	_, logX := p.X.Scale.(plot.LogScale)
	var bands []figure.Band
	for i := range xs {
		if !finite(lo[i]) || !finite(hi[i]) {
			continue
		}
		x0, x1 := stepEdges(xs, i, logX)
		bands = append(bands, figure.Band{Name: "band of the check", X0: x0, X1: x1, Y0: lo[i], Y1: hi[i], Color: figure.Light(figure.Sky, 0x50)})
	}
	return figure.AddBands(p, bands...)
}

// stepEdges are where point i's step begins and ends: halfway (in the
// axis's scale) to its neighbours; at either end as far past the point as
// the axis is padded (a lone point: 5 % of its value either side).
func stepEdges(xs []float64, i int, logX bool) (x0, x1 float64) {
	if len(xs) == 1 {
		w := 0.05 * math.Max(math.Abs(xs[0]), 1)
		return xs[0] - w, xs[0] + w
	}
	mid := func(a, b float64) float64 { return (a + b) / 2 }
	pad := func(x float64, dir float64) float64 { return x + dir*xPad*(xs[len(xs)-1]-xs[0]) }
	if logX {
		mid = func(a, b float64) float64 { return math.Sqrt(a * b) }
		pad = func(x float64, dir float64) float64 { return x * math.Pow(xs[len(xs)-1]/xs[0], dir*xPad) }
	}
	x0, x1 = pad(xs[i], -1), pad(xs[i], 1)
	if i > 0 {
		x0 = mid(xs[i-1], xs[i])
	}
	if i < len(xs)-1 {
		x1 = mid(xs[i], xs[i+1])
	}
	return x0, x1
}

// xPad is how far a sweep's x axis reaches past its first and last point,
// as a share of its range.
const xPad = 0.025

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
