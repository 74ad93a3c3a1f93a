package figure

import (
	"image/color"
	"math"
	"sdchaos/history"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Window is a span of a plot's x axis during which a fault was in force:
// from its Inject to its Heal, or to the end of the run when it was not
// healed (Open: shaded lighter).
type Window struct {
	From, To float64
	Kind     history.EventKind
	Label    string
	Open     bool
}

// Mark is a one-off event (a caller restart, a probe) drawn as a vertical line.
type Mark struct {
	At    float64
	Kind  history.EventKind
	Label string
}

// markMerge is how close one-off events must be to share a mark.
const markMerge = 50 * time.Millisecond

// Seconds maps a run offset to seconds on a plot's x axis.
func Seconds(d time.Duration) float64 { return d.Seconds() }

// Windows pairs each Inject event with the first later Heal of the same
// kind and targets; an Inject that no Heal ends is open and shaded to end.
// Once events become marks. x maps an event's offset to the x axis
// (Seconds, or a model clock); end is the x of the run's end.
func Windows(es history.Events, end float64, x func(time.Duration) float64) ([]Window, []Mark) {
	var ws []Window
	var ms []Mark
	healed := make([]bool, len(es))
	var lastOnce time.Duration
	var spans [][2]time.Duration // each window's inject and heal offsets
	for i, e := range es {
		switch e.Phase {
		case history.Once:
			if n := len(ms); n > 0 && e.At-lastOnce < markMerge {
				ms[n-1].Label += "; " + e.Label // one line for actions at one moment
				continue
			}
			ms, lastOnce = append(ms, Mark{At: x(e.At), Kind: e.Kind, Label: e.Label}), e.At
		case history.Inject:
			w := Window{From: x(e.At), To: end, Kind: e.Kind, Label: e.Label, Open: true}
			span := [2]time.Duration{e.At, -1}
			if j := healOf(es, i, healed); j >= 0 {
				healed[j] = true
				w.To, w.Open, span[1] = x(es[j].At), false, es[j].At
			}
			ws, spans = appendWindow(ws, spans, w, span)
		}
	}
	return ws, ms
}

// appendWindow adds w, or joins its label to a window of the same kind
// injected and healed at the same moments (two groups partitioned at
// once); spans holds each window's inject and heal offsets (−1: open).
func appendWindow(ws []Window, spans [][2]time.Duration, w Window, span [2]time.Duration) ([]Window, [][2]time.Duration) {
	near := func(a, b time.Duration) bool { return (a < 0) == (b < 0) && (a-b < markMerge && b-a < markMerge) }
	for i, o := range ws {
		if o.Kind == w.Kind && near(spans[i][0], span[0]) && near(spans[i][1], span[1]) {
			ws[i].Label += "; " + w.Label
			return ws, spans
		}
	}
	return append(ws, w), append(spans, span)
}

// healOf returns the index of the first Heal after es[i] of the same kind
// and targets that no earlier Inject took, or -1.
func healOf(es history.Events, i int, taken []bool) int {
	for j := i + 1; j < len(es); j++ {
		e := es[j]
		if !taken[j] && e.Phase == history.Heal && e.Kind == es[i].Kind && slices.Equal(e.Targets, es[i].Targets) {
			return j
		}
	}
	return -1
}

// Without returns the events whose kind is none of kinds (probes, say).
func Without(es history.Events, kinds ...history.EventKind) history.Events {
	var out history.Events
	for _, e := range es {
		if !slices.Contains(kinds, e.Kind) {
			out = append(out, e)
		}
	}
	return out
}

// shadeColors are the fills of fault windows, one per kind in order of
// appearance: light and translucent, so the data stays readable, and in
// hues no series uses (tests find the windows by them).
var shadeColors = []color.NRGBA{
	{R: 0xF4, G: 0xA2, B: 0x59, A: 0x48},
	{R: 0x7F, G: 0xB7, B: 0xE6, A: 0x48},
	{R: 0xC7, G: 0x92, B: 0xDF, A: 0x48},
	{R: 0x9E, G: 0x9E, B: 0x9E, A: 0x48},
	{R: 0x66, G: 0xC2, B: 0xA5, A: 0x40},
}

// ShadeColor is the fill of the i-th kind of window in a panel.
func ShadeColor(i int) color.NRGBA { return shadeColors[i%len(shadeColors)] }

// AddWindows shades every window of ws on p and draws every mark as a
// dashed vertical line; above the data area, in a strip reserved below the
// title, each window gets a bar spanning it in its colour with its label
// (staggered where they would overlap), each mark its label. The x axis is
// widened to show them. Add them before the data, so the data is drawn
// over the shading. p needs a title (the strip is part of its padding).
func AddWindows(p *plot.Plot, ws []Window, ms []Mark) {
	if len(ws)+len(ms) == 0 {
		return
	}
	rows := min(len(ws)+len(ms), maxStripRows)
	p.Title.Padding += vg.Length(rows) * stripRowHeight()
	p.Add(&shades{ws: ws, ms: ms})
	p.Add(&shadeLabels{ws: ws, ms: ms, rows: rows})
}

// maxStripRows bounds the rows reserved for window labels.
const maxStripRows = 4

// stripRowHeight is the height of one row of window labels.
func stripRowHeight() vg.Length {
	return labelStyle().Rectangle("Mg").Size().Y + vg.Points(5)
}

// shades fills the windows and strokes the marks.
type shades struct {
	ws []Window
	ms []Mark
}

// kindIndex gives each kind its colour: the order of first appearance.
func kindIndex(ws []Window) map[history.EventKind]int {
	idx := map[history.EventKind]int{}
	for _, w := range ws {
		if _, ok := idx[w.Kind]; !ok {
			idx[w.Kind] = len(idx)
		}
	}
	return idx
}

// Plot implements plot.Plotter.
func (s *shades) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	idx := kindIndex(s.ws)
	for _, w := range s.ws {
		x0, x1 := clampX(c, trX(w.From)), clampX(c, trX(w.To))
		if x1 <= x0 {
			x1 = x0 + vg.Points(1.5) // an instantaneous window stays visible
		}
		fill := ShadeColor(idx[w.Kind])
		if w.Open { // a fault never healed: lighter, it lasts to the end
			fill.A /= 2
		}
		c.FillPolygon(fill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
	for _, m := range s.ms {
		x := trX(m.At)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		sty := lineStyle(Grey, 1)
		sty.Dashes = Dashed
		c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	}
}

// DataRange implements plot.DataRanger: the windows' x extent, no y.
func (s *shades) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, w := range s.ws {
		xmin, xmax = math.Min(xmin, w.From), math.Max(xmax, w.To)
	}
	for _, m := range s.ms {
		xmin, xmax = math.Min(xmin, m.At), math.Max(xmax, m.At)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

func clampX(c draw.Canvas, x vg.Length) vg.Length { return max(c.Min.X, min(c.Max.X, x)) }

// shadeLabels writes the windows' and marks' labels in the strip above
// the data area, each under a bar in its window's colour spanning the window (so
// that overlapping windows stay apart); a label and its bar go down one
// row when they would overlap one already placed.
type shadeLabels struct {
	ws   []Window
	ms   []Mark
	rows int // reserved above the data area
}

// labelStyle is the style of window and mark labels.
func labelStyle() text.Style {
	return text.Style{Color: color.Gray{Y: 0x30}, Font: sans(8), Handler: plot.DefaultTextHandler, YAlign: text.YTop}
}

// barColor is the solid bar of a window's kind.
func barColor(i int) color.NRGBA {
	c := ShadeColor(i)
	c.A = 0xC0
	return c
}

// Plot implements plot.Plotter.
func (l *shadeLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := labelStyle()
	rowH := stripRowHeight()
	idx := kindIndex(l.ws)
	var rows [][][2]vg.Length
	place := func(from, to vg.Length) int {
		r := 0
		for ; r < len(rows); r++ {
			if !slices.ContainsFunc(rows[r], func(q [2]vg.Length) bool { return from < q[1]+vg.Points(4) && q[0] < to+vg.Points(4) }) {
				break
			}
		}
		if r == len(rows) {
			rows = append(rows, nil)
		}
		rows[r] = append(rows[r], [2]vg.Length{from, to})
		return r
	}
	put := func(x0, x1 vg.Length, label string, bar color.Color) {
		if x0 > c.Max.X || x1 < c.Min.X {
			return
		}
		x0, x1 = clampX(c, x0), clampX(c, x1)
		tx, w := x0+vg.Points(2), sty.Width(label)
		if tx+w > c.Max.X { // keep the text inside the panel
			tx = max(c.Min.X+vg.Points(2), c.Max.X-w-vg.Points(2))
		}
		r := place(min(x0, tx), max(x1, tx+w))
		y := c.Max.Y + vg.Length(l.rows-r)*rowH - vg.Points(1)
		if bar != nil {
			c.FillPolygon(bar, []vg.Point{{X: x0, Y: y}, {X: max(x1, x0+vg.Points(2)), Y: y},
				{X: max(x1, x0+vg.Points(2)), Y: y - vg.Points(2.5)}, {X: x0, Y: y - vg.Points(2.5)}})
		}
		c.FillText(sty, vg.Point{X: tx, Y: y - vg.Points(3)}, label)
	}
	for _, w := range l.ws {
		put(trX(w.From), trX(w.To), w.Label, barColor(idx[w.Kind]))
	}
	for _, m := range l.ms {
		put(trX(m.At), trX(m.At), m.Label, nil)
	}
}
