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

// healOf returns the index of the first Heal after es[i] of the same kind,
// targets and cluster that no earlier Inject took, or -1.
func healOf(es history.Events, i int, taken []bool) int {
	for j := i + 1; j < len(es); j++ {
		e := es[j]
		if !taken[j] && e.Phase == history.Heal && e.Kind == es[i].Kind && e.Cluster == es[i].Cluster &&
			slices.Equal(e.Targets, es[i].Targets) {
			return j
		}
	}
	return -1
}

// InCluster returns the events of cluster and those of no cluster (that
// act on the whole world): the events a panel of one cluster draws.
func InCluster(es history.Events, cluster string) history.Events {
	var out history.Events
	for _, e := range es {
		if e.Cluster == "" || e.Cluster == cluster {
			out = append(out, e)
		}
	}
	return out
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

// Plot implements plot.Plotter: each stretch of the x axis covered by one
// window is filled in that window's colour; a stretch where windows
// overlap is filled with diagonal stripes in the colours of each of them
// (never a blend, which no label names).
func (s *shades) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	spans := s.spans(c, trX)
	for _, seg := range segmentsOf(spans) {
		if len(seg.fills) == 1 {
			c.FillPolygon(seg.fills[0], rect(seg.x0, seg.x1, c.Min.Y, c.Max.Y))
			continue
		}
		for _, st := range stripes(seg, c.Min.X, c.Min.Y, c.Max.Y) {
			c.FillPolygon(st.fill, st.poly)
		}
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

// span is one window on the canvas: its x extent and its fill.
type span struct {
	x0, x1 vg.Length
	fill   color.NRGBA
}

// spans returns the windows' extents on c (an instantaneous window 1.5
// points wide, so that it stays visible) and their fills (a window never
// healed lighter).
func (s *shades) spans(c draw.Canvas, trX func(float64) vg.Length) []span {
	idx := kindIndex(s.ws)
	out := make([]span, 0, len(s.ws))
	for _, w := range s.ws {
		x0, x1 := clampX(c, trX(w.From)), clampX(c, trX(w.To))
		if x1 <= x0 {
			x1 = x0 + vg.Points(1.5)
		}
		fill := ShadeColor(idx[w.Kind])
		if w.Open { // a fault never healed: lighter, it lasts to the end
			fill.A /= 2
		}
		out = append(out, span{x0: x0, x1: x1, fill: fill})
	}
	return out
}

// segment is a stretch of the x axis and the fills of the windows covering
// all of it, in the windows' order.
type segment struct {
	x0, x1 vg.Length
	fills  []color.NRGBA
}

// segmentsOf cuts the x axis at every window's edges and returns the
// stretches that at least one window covers.
func segmentsOf(spans []span) []segment {
	var cuts []vg.Length
	for _, s := range spans {
		cuts = append(cuts, s.x0, s.x1)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []segment
	for i := 0; i+1 < len(cuts); i++ {
		seg := segment{x0: cuts[i], x1: cuts[i+1]}
		for _, s := range spans {
			if s.x0 <= seg.x0 && s.x1 >= seg.x1 && !slices.Contains(seg.fills, s.fill) {
				seg.fills = append(seg.fills, s.fill)
			}
		}
		if len(seg.fills) > 0 {
			out = append(out, seg)
		}
	}
	return out
}

// stripeWidth is the width of one stripe where windows overlap.
var stripeWidth = vg.Points(5)

// stripe is one stripe's polygon and fill.
type stripe struct {
	poly []vg.Point
	fill color.NRGBA
}

// stripes fills seg with 45° stripes cycling through its fills, each
// twice as opaque as its window's fill (a stripe covers only part of the
// stretch, so the overlap looks as strong as one window); their phase is
// anchored at origin, so that adjacent stretches line up.
func stripes(seg segment, origin, y0, y1 vg.Length) []stripe {
	h := y1 - y0
	k := len(seg.fills)
	var out []stripe
	first := int(math.Floor(float64((seg.x0 - h - origin) / stripeWidth)))
	for j := first; origin+vg.Length(j)*stripeWidth < seg.x1; j++ {
		u := origin + vg.Length(j)*stripeWidth
		band := []vg.Point{{X: u, Y: y0}, {X: u + stripeWidth, Y: y0}, {X: u + stripeWidth + h, Y: y1}, {X: u + h, Y: y1}}
		if poly := clipRect(band, seg.x0, seg.x1, y0, y1); len(poly) >= 3 {
			fill := seg.fills[((j%k)+k)%k]
			fill.A = uint8(min(5*int(fill.A)/2, 0xA8))
			out = append(out, stripe{poly: poly, fill: fill})
		}
	}
	return out
}

// rect is the rectangle [x0, x1] × [y0, y1] as a polygon.
func rect(x0, x1, y0, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

// clipRect clips a convex polygon to the rectangle [x0, x1] × [y0, y1]
// (Sutherland–Hodgman, one edge of the rectangle at a time).
func clipRect(poly []vg.Point, x0, x1, y0, y1 vg.Length) []vg.Point {
	edges := []struct {
		in    func(vg.Point) bool
		cross func(a, b vg.Point) vg.Point
	}{
		{func(p vg.Point) bool { return p.X >= x0 }, func(a, b vg.Point) vg.Point { return atX(a, b, x0) }},
		{func(p vg.Point) bool { return p.X <= x1 }, func(a, b vg.Point) vg.Point { return atX(a, b, x1) }},
		{func(p vg.Point) bool { return p.Y >= y0 }, func(a, b vg.Point) vg.Point { return atY(a, b, y0) }},
		{func(p vg.Point) bool { return p.Y <= y1 }, func(a, b vg.Point) vg.Point { return atY(a, b, y1) }},
	}
	for _, e := range edges {
		var out []vg.Point
		for i, cur := range poly {
			prev := poly[(i+len(poly)-1)%len(poly)]
			switch {
			case e.in(cur) && !e.in(prev):
				out = append(out, e.cross(prev, cur), cur)
			case e.in(cur):
				out = append(out, cur)
			case e.in(prev):
				out = append(out, e.cross(prev, cur))
			}
		}
		if poly = out; len(poly) == 0 {
			return nil
		}
	}
	return poly
}

// atX is the point of the segment a–b at x.
func atX(a, b vg.Point, x vg.Length) vg.Point {
	t := (x - a.X) / (b.X - a.X)
	return vg.Point{X: x, Y: a.Y + t*(b.Y-a.Y)}
}

// atY is the point of the segment a–b at y.
func atY(a, b vg.Point, y vg.Length) vg.Point {
	t := (y - a.Y) / (b.Y - a.Y)
	return vg.Point{X: a.X + t*(b.X-a.X), Y: y}
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
	for _, m := range l.ms { // a tick in the strip where the dashed line is (data may hide the line)
		put(trX(m.At), trX(m.At), m.Label, Grey)
	}
}
