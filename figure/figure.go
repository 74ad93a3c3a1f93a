// Package figure draws the harness's plots: small helpers over
// gonum.org/v1/plot that every scenario's plot uses — a time series with
// every fault window shaded and labelled from the run's typed events, a
// log–log (or log-x) scatter with a fitted or theory line, a distribution
// per group, grouped bars, and curves with error bars — and renders a
// figure (one or more panels) to SVG and PNG bytes. Everything is pure:
// the same data gives the same picture, so each helper is tested by
// rendering synthetic data.
package figure

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot is one figure a scenario writes: Name is the file name without its
// extension ("per-second" → <scenario>.per-second.svg), Panels are drawn
// in a grid of Cols columns (1 when zero), row by row, with their axes
// aligned. Width and Height are the whole figure's (defaults: 9 in wide,
// 3 in per row).
type Plot struct {
	Name          string
	Panels        []*plot.Plot
	Cols          int
	Width, Height vg.Length
	// RowHeights, one per row top to bottom, share Height between the
	// rows in their proportions (a tall operations chart over a short
	// panel); nil shares it equally.
	RowHeights []vg.Length
}

// One returns a figure of a single panel.
func One(name string, p *plot.Plot) Plot { return Plot{Name: name, Panels: []*plot.Plot{p}} }

// Stack returns a figure of panels stacked top to bottom.
func Stack(name string, ps ...*plot.Plot) Plot { return Plot{Name: name, Panels: ps} }

// The colours every plot uses: the Okabe–Ito palette, safe for colour-blind
// readers (Wine, from Paul Tol's, takes the place of its black, which the
// plots keep for theory and reference lines); OK and Fail are the ok/fail
// colours of call counts.
var (
	Blue      = color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}
	Orange    = color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}
	Green     = color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}
	Vermilion = color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}
	Purple    = color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}
	Sky       = color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}
	Yellow    = color.RGBA{R: 0xC8, G: 0xB4, B: 0x00, A: 0xFF}
	Wine      = color.RGBA{R: 0x88, G: 0x22, B: 0x55, A: 0xFF}
	Black     = color.RGBA{A: 0xFF}
	Grey      = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xFF}
	OK        = Green
	Fail      = Vermilion
)

// palette is the order in which series get their colours: never black,
// the colour of reference lines (a threshold, a server's own count).
var palette = []color.Color{Blue, Orange, Green, Vermilion, Purple, Sky, Yellow, Wine}

// Color returns the i-th colour of the palette (cycling).
func Color(i int) color.Color { return palette[((i%len(palette))+len(palette))%len(palette)] }

// sans returns the plots' font (Liberation Sans, metrically Arial) at size points.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// NewPanel returns an empty panel with a title and axis labels (give the
// unit in the label: "time since the run started (s)"), a light grid, the
// plots' font and its legend at the top left (Render moves it beside the
// panel).
func NewPanel(title, xLabel, yLabel string) *plot.Plot {
	p, _ := newPanel(title, xLabel, yLabel)
	return p
}

// newPanel is NewPanel, also returning the panel's grid.
func newPanel(title, xLabel, yLabel string) (*plot.Plot, *plotter.Grid) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.Title.TextStyle.Font = sans(12)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(9)
		a.Tick.Marker = tidyTicks{}
	}
	p.Legend.TextStyle.Font = sans(9)
	p.Legend.Padding = vg.Points(3)
	p.Legend.Top, p.Legend.Left = true, true
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = color.Gray{Y: 0xE4}, color.Gray{Y: 0xE4}
	p.Add(g)
	return p, g
}

// LogY puts p's y axis on a log scale with powers-of-ten ticks (every
// value drawn must be positive).
func LogY(p *plot.Plot) {
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
}

// LogX puts p's x axis on a log scale with powers-of-ten ticks.
func LogX(p *plot.Plot) {
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
}

// logTicks labels 1, 2 and 5 times each power of ten (plot.LogTicks labels
// only the powers, which leaves a short range without labels).
type logTicks struct{}

// Ticks returns the ticks between lo and hi (both positive).
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > 0) {
		return nil
	}
	var out []plot.Tick
	major := math.Log10(hi/lo) < 2.5
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := base * m
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (major && (m == 2 || m == 5)) {
				t.Label = tickLabel(v)
			}
			out = append(out, t)
		}
	}
	labelEnds(out, lo, hi)
	return out
}

// labelEnds labels a 2 or 5 tick at either end of a log axis that lies
// half a decade or more beyond the last labelled one (0.014 to 0.1: the
// 0.02 tick), so that values drawn there can be read.
func labelEnds(ticks []plot.Tick, lo, hi float64) {
	first, last := -1, -1
	for i, t := range ticks {
		if t.Label != "" {
			last = i
			if first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return
	}
	apart := func(a, b float64) bool { return math.Abs(math.Log10(a/b)) >= 0.5-1e-9 }
	for i := 0; i < first; i++ { // the lowest 2 or 5 far enough below the first label
		if roundMinor(ticks[i].Value) && apart(ticks[i].Value, ticks[first].Value) {
			ticks[i].Label = tickLabel(ticks[i].Value)
			break
		}
	}
	for i := len(ticks) - 1; i > last; i-- { // the highest far enough above the last
		if roundMinor(ticks[i].Value) && apart(ticks[i].Value, ticks[last].Value) {
			ticks[i].Label = tickLabel(ticks[i].Value)
			break
		}
	}
}

// roundMinor reports whether v is 2 or 5 times a power of ten.
func roundMinor(v float64) bool {
	m := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
	return math.Abs(m-2) < 1e-6 || math.Abs(m-5) < 1e-6
}

// tidyTicks label about six round values (1, 2 or 5 times a power of
// ten) with unlabelled minor ticks between, without trailing zeros ("25",
// not "25.00"); gonum's default labels only about three.
type tidyTicks struct{}

// labelsWanted is how many labelled ticks an axis aims at.
const labelsWanted = 6

// Ticks returns the ticks between lo and hi.
func (tidyTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !finite(lo, hi) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step, minor := niceStep((hi - lo) / labelsWanted)
	var out []plot.Tick
	for i := math.Ceil(lo / minor); i*minor <= hi*(1+1e-12)+1e-12; i++ {
		v := i * minor
		t := plot.Tick{Value: v}
		if r := math.Mod(math.Abs(v)+step*1e-9, step); r < step*1e-6 {
			t.Label = tickLabel(math.Round(v/step) * step)
		}
		out = append(out, t)
	}
	return out
}

// niceStep returns the round step at least raw (1, 2 or 5 × 10^k) and its
// minor step.
func niceStep(raw float64) (step, minor float64) {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if step = m * mag; step >= raw*(1-1e-9) {
			break
		}
	}
	switch m := step / mag; {
	case m == 2:
		return step, step / 4
	case m == 5 || m == 10:
		return step, step / 5
	}
	return step, step / 5
}

// tickLabel formats a tick value in at most 6 significant digits, and a
// whole number from 10,000 with thousands separators.
func tickLabel(v float64) string {
	switch {
	case math.Abs(v) < 1e-12:
		return "0"
	case math.Abs(v) >= 1e4 && math.Abs(v) < 1e15 && v == math.Trunc(v):
		return Thousands(int64(v))
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// Thousands formats n with thousands separators: 1000000 → "1,000,000".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// FloorY makes p's y axis start at zero (counts and shares).
func FloorY(p *plot.Plot) { p.Y.Min = math.Min(p.Y.Min, 0) }

// Headroom raises p's y maximum by frac of its range, so that the window
// labels at the top of a panel do not hide the data.
func Headroom(p *plot.Plot, frac float64) {
	if p.Y.Max > p.Y.Min {
		if _, log := p.Y.Scale.(plot.LogScale); log {
			p.Y.Max *= math.Pow(p.Y.Max/p.Y.Min, frac)
			return
		}
		p.Y.Max += frac * (p.Y.Max - p.Y.Min)
	}
}

// lineStyle returns a solid line of colour c and width w points.
func lineStyle(c color.Color, w float64) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(w)}
}

// Dashed is the dash pattern of theory and reference lines.
var Dashed = []vg.Length{vg.Points(5), vg.Points(3)}

// Dotted is the dash pattern of secondary reference lines.
var Dotted = []vg.Length{vg.Points(1.5), vg.Points(2)}
