package figure

import (
	"fmt"
	"image/color"
	"math"

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
// Colour nil takes the palette's next; Width 0 is 1.5 points.
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
			sc.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
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

// Caller is one caller's per-second counts and the label its panel shows.
type Caller struct {
	Label  string
	Series report.Series
}

// PerSecond returns a figure with one panel per caller: its ok and failed
// calls per second of scheduled send time (failed includes timed out,
// which is also drawn on its own when there is any), with the fault
// windows shaded and the marks drawn on every panel.
func PerSecond(name string, callers []Caller, ws []Window, ms []Mark) (Plot, error) {
	f := Plot{Name: name}
	ymax := 0.0
	for _, c := range callers {
		lines := []Line{
			{Name: "ok", Y: Floats(c.Series.OK), Color: OK, Step: true},
			{Name: "failed", Y: Floats(c.Series.Fail), Color: Fail, Step: true, Width: 1.5},
		}
		if sum(c.Series.Unknown) > 0 {
			lines = append(lines, Line{Name: "of which timed out", Y: Floats(c.Series.Unknown), Color: Fail, Step: true, Dashes: Dotted, Width: 1})
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
	for _, p := range f.Panels {
		p.Y.Max = ymax
	}
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
				out = append(out, Caller{Label: r.Label, Series: s})
			}
		}
	}
	for _, k := range report.SortedKeys(series) {
		if ok, fail := series[k].Total(); !seen[k] && ok+fail > 0 {
			out = append(out, Caller{Label: k, Series: series[k]})
		}
	}
	return out
}

// RunWindows returns the fault windows and marks of a run on a seconds
// axis that ends at end, leaving out probes.
func RunWindows(es history.Events, end float64) ([]Window, []Mark) {
	return Windows(Without(es, history.Probe), end, Seconds)
}
