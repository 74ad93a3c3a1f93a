package figure

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"sdchaos/history"
	"sdchaos/report"
)

// Line is one series of a panel: points (X[i], Y[i]); a NaN leaves a gap.
// Step draws counts per bucket: Y[i] holds over [X[i], X[i+1]) and the last
// over one more bucket of the same width. Points adds a dot per point.
// Colour nil takes the palette's next; Width 0 is 1.5 points. Area
// hatches the area under the line down to zero in its colour instead of
// stroking it (a part of another count, which stays visible where the
// two are equal).
type Line struct {
	Name   string
	X, Y   []float64
	Color  color.Color
	Dashes []vg.Length
	Width  float64
	Step   bool
	Points bool
	// PointRadius is the dots' radius in points (0: 2).
	PointRadius float64
	// PointShape draws the points in another glyph than a dot (an open
	// square, a ring: markers that nest where lines coincide).
	PointShape draw.GlyphDrawer
	Area       bool
}

// AddLines adds each line to p, with a legend entry for every named one.
func AddLines(p *plot.Plot, lines ...Line) error {
	for i, l := range lines {
		if l.Color == nil {
			l.Color = Color(i)
		}
		if err := addLine(p, l); err != nil {
			return fmt.Errorf("line %q: %w", l.Name, err)
		}
	}
	return nil
}

func addLine(p *plot.Plot, l Line) error {
	if len(l.X) != len(l.Y) {
		return fmt.Errorf("%d x values but %d y values", len(l.X), len(l.Y))
	}
	sty := lineStyle(l.Color, l.Width)
	if l.Width == 0 {
		sty.Width = vg.Points(1.5)
	}
	sty.Dashes = l.Dashes
	var thumbs []plot.Thumbnailer
	for _, seg := range segments(l) {
		if l.Area {
			area := &hatchArea{xy: seg, step: l.Step, color: l.Color}
			p.Add(area)
			thumbs = []plot.Thumbnailer{area}
			continue
		}
		line, err := plotter.NewLine(seg)
		if err != nil {
			return err
		}
		line.LineStyle = sty
		if l.Step {
			line.StepStyle = plotter.PostStep
		}
		p.Add(line)
		thumbs = []plot.Thumbnailer{line}
		if l.Points {
			sc, err := plotter.NewScatter(seg)
			if err != nil {
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(2), Shape: cmp.Or[draw.GlyphDrawer](l.PointShape, draw.CircleGlyph{})}
			if l.PointRadius > 0 {
				sc.GlyphStyle.Radius = vg.Points(l.PointRadius)
			}
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
	}
	if l.Name != "" && thumbs != nil {
		p.Legend.Add(l.Name, thumbs...)
	}
	return nil
}

// hatchArea hatches the area under a line down to zero (as steps when
// step) with thin diagonal lines of its colour: opaque lines, so that
// over a shaded fault window it keeps its colour instead of blending.
type hatchArea struct {
	xy    plotter.XYs
	step  bool
	color color.Color
}

// hatchGap is the distance between two hatch lines; hatchWidth their width.
var hatchGap, hatchWidth = vg.Points(3.5), vg.Points(1)

// Plot implements plot.Plotter: each step (or each stretch between two
// points, at the lower of their values) is hatched.
func (a *hatchArea) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := 0; i+1 < len(a.xy); i++ {
		y := a.xy[i].Y
		if !a.step {
			y = math.Min(y, a.xy[i+1].Y)
		}
		if y > 0 {
			hatch(c, trX(a.xy[i].X), trX(a.xy[i+1].X), trY(0), trY(y), a.color)
		}
	}
}

// hatch fills [x0, x1] × [y0, y1] with 45° lines of colour col, anchored
// at x = 0 so that neighbouring rectangles line up.
func hatch(c draw.Canvas, x0, x1, y0, y1 vg.Length, col color.Color) {
	h := y1 - y0
	for u := vg.Length(math.Floor(float64((x0-h)/hatchGap))) * hatchGap; u < x1; u += hatchGap {
		band := []vg.Point{{X: u, Y: y0}, {X: u + hatchWidth, Y: y0}, {X: u + hatchWidth + h, Y: y1}, {X: u + h, Y: y1}}
		if poly := clipRect(band, x0, x1, y0, y1); len(poly) >= 3 {
			c.FillPolygon(col, poly)
		}
	}
}

// DataRange implements plot.DataRanger.
func (a *hatchArea) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), 0, 0
	for _, p := range a.xy {
		xmin, xmax, ymax = math.Min(xmin, p.X), math.Max(xmax, p.X), math.Max(ymax, p.Y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer: a hatched swatch.
func (a *hatchArea) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	hatch(*c, c.Min.X, c.Max.X, mid-vg.Points(4), mid+vg.Points(4), a.color)
}

// segments splits a line at its NaN values; a step line gets one more
// point so that its last bucket is drawn.
func segments(l Line) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i := range l.X {
		if !finite(l.X[i], l.Y[i]) {
			flush()
			continue
		}
		cur = append(cur, plotter.XY{X: l.X[i], Y: l.Y[i]})
	}
	if l.Step && len(cur) > 0 {
		width := 1.0
		if n := len(l.X); n > 1 {
			width = l.X[n-1] - l.X[n-2]
		}
		last := cur[len(cur)-1]
		cur = append(cur, plotter.XY{X: last.X + width, Y: last.Y})
	}
	flush()
	return out
}

// TimeSeries returns a panel of lines over time with the fault windows
// shaded and the marks drawn; its y axis starts at zero and leaves room at
// the top for the window labels.
func TimeSeries(title, xLabel, yLabel string, ws []Window, ms []Mark, lines ...Line) (*plot.Plot, error) {
	p := NewPanel(title, xLabel, yLabel)
	AddWindows(p, ws, ms)
	if err := AddLines(p, lines...); err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	FloorY(p)
	Headroom(p, 0.05)
	return p, nil
}

// Index returns 0, 1, … n−1 as x values (seconds, buckets).
func Index(n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) * scale
	}
	return out
}

// Floats converts counts to plot values.
func Floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// Caller is one caller's per-second counts, the label its panel shows
// and its name (the series' key: what a panel of identical callers lists).
type Caller struct {
	Label  string
	Series report.Series
	Name   string
}

// PerSecond returns a figure with one panel per caller: its ok and failed
// calls per second of scheduled send time (ok drawn wide under failed, so
// that a second with as many of each shows both; failed includes timed out,
// which is also drawn, as a grey hatched area under the failed line —
// grey as the unknown ops of an operations chart — when there is any), with the fault windows shaded and the marks drawn on every
// panel. A second with too few failures to see on the shared y scale is
// marked with a triangle and its count (markFewFailures).
func PerSecond(name string, callers []Caller, ws []Window, ms []Mark) (Plot, error) {
	f := Plot{Name: name}
	ymax := 0.0
	for _, c := range callers {
		lines := []Line{ // ok wide under failed: a second with as many of each shows both
			{Name: "ok", Y: Floats(c.Series.OK), Color: OK, Step: true, Width: 2.6},
			{Name: "failed", Y: Floats(c.Series.Fail), Color: Fail, Step: true, Width: 1.2},
		}
		if sum(c.Series.Unknown) > 0 {
			lines = append(lines, Line{Name: "of which timed out", Y: Floats(c.Series.Unknown), Color: Grey, Step: true, Area: true})
		}
		for i := range lines {
			lines[i].X = Index(len(lines[i].Y), 1)
		}
		p, err := TimeSeries(c.Label, "second of the run (scheduled send time)", "calls per second", ws, ms, lines...)
		if err != nil {
			return f, err
		}
		f.Panels = append(f.Panels, p)
	}
	for _, p := range f.Panels { // one y scale for every caller
		ymax = math.Max(ymax, p.Y.Max)
	}
	for i, p := range f.Panels {
		p.Y.Max = ymax
		if err := markFewFailures(p, callers[i].Series.Fail, ymax); err != nil {
			return f, err
		}
	}
	ShareX(f.Panels...)
	if len(callers) > 1 {
		f.Height = vg.Inch * 2.3 * vg.Length(len(callers))
	}
	return f, nil
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		if !math.IsNaN(x) {
			m = math.Max(m, x)
		}
	}
	return m
}

// Styled returns l in colour c with the dash pattern dashes (nil: solid),
// 1.2 points wide: theory and reference lines.
func (l Line) Styled(c color.Color, dashes []vg.Length) Line {
	l.Color, l.Dashes, l.Width = c, dashes, 1.2
	return l
}

// Callers returns the per-second series in the order of rows (with their
// labels), then every other series in name order, labelled by its name;
// a series without a single call (a caller the run did not start) is left
// out.
func Callers(series map[string]report.Series, rows ...report.Row) []Caller {
	var out []Caller
	seen := map[string]bool{}
	for _, r := range rows {
		if s, ok := series[r.Key]; ok {
			seen[r.Key] = true
			if ok, fail := s.Total(); ok+fail > 0 {
				out = append(out, Caller{Label: r.Label, Series: s, Name: r.Key})
			}
		}
	}
	for _, k := range report.SortedKeys(series) {
		if ok, fail := series[k].Total(); !seen[k] && ok+fail > 0 {
			out = append(out, Caller{Label: k, Series: series[k], Name: k})
		}
	}
	return out
}

// SameEverySecond merges the callers whose per-second series are
// identical (ok, failed and timed out, every second) into one caller in
// the place of the first of them, labelled with their names — and, when
// the counts never change, with them: "identical: keep, stale_fallback,
// grpc_rr — 40 ok / 0 failed every second". A figure of the result draws
// the callers that differ in panels of their own and those that behaved
// alike once, so that the contrast shows. A caller like no other keeps
// its panel and label.
func SameEverySecond(callers []Caller) []Caller {
	var out []Caller
	var groups [][]Caller
	for _, c := range callers {
		i := slices.IndexFunc(groups, func(g []Caller) bool { return sameSeries(g[0].Series, c.Series) })
		if i < 0 {
			groups = append(groups, []Caller{c})
			continue
		}
		groups[i] = append(groups[i], c)
	}
	for _, g := range groups {
		if len(g) == 1 {
			out = append(out, g[0])
			continue
		}
		names := make([]string, len(g))
		for i, c := range g {
			names[i] = cmp.Or(c.Name, c.Label)
		}
		label := "identical every second: " + strings.Join(names, ", ")
		if ok, fail, flat := flatCounts(g[0].Series); flat {
			label = fmt.Sprintf("identical: %s — %d ok / %d failed every second", strings.Join(names, ", "), ok, fail)
		}
		out = append(out, Caller{Label: label, Series: g[0].Series, Name: strings.Join(names, ",")})
	}
	return out
}

// sameSeries reports whether two callers counted the same every second.
func sameSeries(a, b report.Series) bool {
	return sameCounts(a.OK, b.OK) && sameCounts(a.Fail, b.Fail) && sameCounts(a.Unknown, b.Unknown)
}

// sameCounts reports whether a and b count the same every second (a
// second missing from one counts 0).
func sameCounts(a, b []int) bool {
	for i := range max(len(a), len(b)) {
		if at(a, i) != at(b, i) {
			return false
		}
	}
	return true
}

func at(xs []int, i int) int {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// flatCounts returns the ok and failed count of every second when they
// never change and nothing timed out (flat false otherwise).
func flatCounts(s report.Series) (ok, fail int, flat bool) {
	if len(s.OK) == 0 || sum(s.Unknown) > 0 {
		return 0, 0, false
	}
	for i := range s.OK {
		if s.OK[i] != s.OK[0] || (i < len(s.Fail) && s.Fail[i] != s.Fail[0]) {
			return 0, 0, false
		}
	}
	if len(s.Fail) > 0 {
		fail = s.Fail[0]
	}
	return s.OK[0], fail, true
}

// RunWindows returns the fault windows and marks of a run on a seconds
// axis that ends at end, leaving out probes.
func RunWindows(es history.Events, end float64) ([]Window, []Mark) {
	return Windows(Without(es, history.Probe), end, Seconds)
}
