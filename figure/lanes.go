package figure

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"sdchaos/history"
)

// Lane is one row of an operations chart: every op of one caller (a
// probe, a member's puts), each drawn as a bar from its start to its end.
// Ops of a lane that overlap in time are drawn on sub-rows of the lane, so
// that no two bars of a lane overlap.
type Lane struct {
	Name string
	Ops  []history.Op
}

// OutcomeColor is the colour of an op's bar: ok green, failed vermilion,
// unknown (timed out, may have happened) grey.
func OutcomeColor(o history.Outcome) color.Color {
	switch o {
	case history.OK:
		return OK
	case history.Fail:
		return Fail
	}
	return Grey
}

// Stale is the colour of a stale read: an answer, but an old one.
var Stale = Blue

// Highlight draws the ops Is selects in Color under the legend entry Name,
// whatever their outcome, each with a diamond on its bar so that an
// instant op shows (a stale read: it answered ok, with an old value).
type Highlight struct {
	Name  string
	Color color.Color
	Is    func(history.Op) bool
}

// LanesOf returns one lane per caller of the ops that rank keeps, ordered
// by their rank (lower first), then by the caller's first start, then by
// its name. Each lane is named by its caller.
func LanesOf(ops []history.Op, rank func(history.Op) (r int, keep bool)) []Lane {
	type group struct {
		rank int
		ops  []history.Op
	}
	byCaller := map[string]*group{}
	var names []string
	for _, op := range ops {
		r, keep := rank(op)
		if !keep {
			continue
		}
		g, ok := byCaller[op.Caller]
		if !ok {
			g = &group{rank: r}
			byCaller[op.Caller] = g
			names = append(names, op.Caller)
		}
		g.rank = min(g.rank, r)
		g.ops = append(g.ops, op)
	}
	firstStart := func(name string) float64 {
		return slices.MinFunc(byCaller[name].ops, func(a, b history.Op) int { return cmp.Compare(a.Start, b.Start) }).Start.Seconds()
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(byCaller[a].rank, byCaller[b].rank), cmp.Compare(firstStart(a), firstStart(b)), cmp.Compare(a, b))
	})
	lanes := make([]Lane, len(names))
	for i, name := range names {
		lanes[i] = Lane{Name: name, Ops: byCaller[name].ops}
	}
	return lanes
}

// Layout of an operations chart, in units of the y axis: the distance
// between two sub-rows of a lane and between the last sub-row of a lane
// and the first of the next.
const (
	subRowPitch = 0.5
	lanePitch   = 1.0
)

// laneBar is one op's bar: its x extent in seconds, its row's y, its
// colour, and whether it is highlighted (a diamond on it).
type laneBar struct {
	x0, x1, y float64
	color     color.Color
	marked    bool
}

// laneRows is where a lane's sub-rows are: the y of its first (top) and
// last (bottom) sub-row.
type laneRows struct{ top, bottom float64 }

// centre is the y of the lane's label.
func (r laneRows) centre() float64 { return (r.top + r.bottom) / 2 }

// laneLayout places every op of lanes: each op on the first sub-row of its
// lane whose bars all end (with a gap) before it starts. width is the
// shortest bar (an instant op stays visible) and gap the least space
// between two bars of a row, both in seconds. It returns the bars and
// each lane's rows, top to bottom from y = 0 down.
func laneLayout(lanes []Lane, hs []Highlight, width, gap float64) (bars []laneBar, rows []laneRows) {
	y := 0.0
	for i, l := range lanes {
		if i > 0 {
			y -= lanePitch
		}
		ops := slices.Clone(l.Ops)
		slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Start, b.Start) })
		var ends []float64 // the end of the last bar on each sub-row
		for _, op := range ops {
			from := op.Start.Seconds()
			to := math.Max(op.End.Seconds(), from+width)
			row := slices.IndexFunc(ends, func(end float64) bool { return end+gap <= from })
			if row < 0 {
				row, ends = len(ends), append(ends, 0)
			}
			ends[row] = to
			b := laneBar{x0: from, x1: to, y: y - float64(row)*subRowPitch, color: OutcomeColor(op.Outcome)}
			for _, h := range hs {
				if h.Is(op) {
					b.color, b.marked = h.Color, true
					break
				}
			}
			bars = append(bars, b)
		}
		bottom := y - float64(max(len(ends), 1)-1)*subRowPitch
		rows = append(rows, laneRows{top: y, bottom: bottom})
		y = bottom
	}
	return bars, rows
}

// opSpan returns the first start and last end of the lanes' ops, in seconds.
func opSpan(lanes []Lane) (from, to float64) {
	from, to = math.Inf(1), math.Inf(-1)
	for _, l := range lanes {
		for _, op := range l.Ops {
			from, to = math.Min(from, op.Start.Seconds()), math.Max(to, op.End.Seconds())
		}
	}
	if from > to {
		return 0, 1
	}
	return from, to
}

// Lanes returns a panel with one row per lane, top to bottom, each op a
// bar coloured by its outcome (or by the first highlight that selects it),
// over the fault windows and marks; x is seconds of the run. An instant op
// is drawn 1/250 of the time axis wide (at least 0.05 s); ops of a lane
// that overlap are drawn on sub-rows of the lane, a thin line between
// lanes.
func Lanes(title string, lanes []Lane, ws []Window, ms []Mark, hs ...Highlight) (*plot.Plot, error) {
	if len(lanes) == 0 {
		return nil, fmt.Errorf("%s: no lane to draw", title)
	}
	p, grid := newPanel(title, "time since the run started (s)", "")
	grid.Horizontal.Color = nil // lane separators instead: a grid line would run between sub-rows
	AddWindows(p, ws, ms)
	from, to := opSpan(lanes)
	span := math.Max(to-from, 1)
	bars, rows := laneLayout(lanes, hs, math.Max(0.05, span/250), span/400)
	p.Add(&laneBars{bars: bars, rows: rows, from: from, to: to})
	addLaneLegend(p, bars, hs)
	ticks := make([]plot.Tick, len(lanes))
	for i, l := range lanes {
		ticks[i] = plot.Tick{Value: rows[i].centre(), Label: l.Name}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = rows[len(rows)-1].bottom-0.6, 0.6
	padAxis(&p.X, 0.01) // an op at the very end stays inside the frame
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	return p, nil
}

// addLaneLegend names every outcome drawn, and every highlight that
// selected an op.
func addLaneLegend(p *plot.Plot, bars []laneBar, hs []Highlight) {
	drawn := func(c color.Color, marked bool) bool {
		return slices.ContainsFunc(bars, func(b laneBar) bool { return b.color == c && b.marked == marked })
	}
	for _, o := range []history.Outcome{history.OK, history.Fail, history.Unknown} {
		if drawn(OutcomeColor(o), false) {
			p.Legend.Add(outcomeWord(o), barThumb{color: OutcomeColor(o)})
		}
	}
	for _, h := range hs {
		if drawn(h.Color, true) {
			p.Legend.Add(h.Name, barThumb{color: h.Color, marked: true})
		}
	}
}

// outcomeWord is an outcome's legend entry.
func outcomeWord(o history.Outcome) string {
	switch o {
	case history.OK:
		return "ok"
	case history.Fail:
		return "failed"
	}
	return "unknown (timed out)"
}

// LanesHeight is the height of a figure with one Lanes panel of these
// lanes: a fixed part for the title, the axis and the fault strip, and
// the rest in proportion to the rows (sub-rows count half a lane).
func LanesHeight(lanes []Lane) vg.Length {
	_, rows := laneLayout(lanes, nil, 0.05, 0)
	if len(rows) == 0 {
		return vg.Inch * 1.6
	}
	return vg.Inch * (1.6 + 0.22*vg.Length(lanePitch-rows[len(rows)-1].bottom))
}

// laneBars draws the bars of an operations chart as filled rectangles
// (highlighted ones with a diamond), and a thin line between lanes.
type laneBars struct {
	bars     []laneBar
	rows     []laneRows
	from, to float64
}

// barHeight is the thickness of a bar: 0.8 of a sub-row, at most 7 points.
func barHeight(trY func(float64) vg.Length) vg.Length {
	return min(vg.Points(7), 0.8*vg.Length(math.Abs(float64(trY(subRowPitch)-trY(0)))))
}

// Plot implements plot.Plotter.
func (l *laneBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	h := barHeight(trY)
	sep := lineStyle(color.Gray{Y: 0xD8}, 0.5)
	for i := 1; i < len(l.rows); i++ {
		y := trY((l.rows[i-1].bottom + l.rows[i].top) / 2)
		c.StrokeLine2(sep, c.Min.X, y, c.Max.X, y)
	}
	for _, b := range l.bars {
		y := trY(b.y)
		c.FillPolygon(b.color, rect(trX(b.x0), trX(b.x1), y-h/2, y+h/2))
	}
	for _, b := range l.bars {
		if b.marked {
			x := (trX(b.x0) + trX(b.x1)) / 2
			c.DrawGlyph(draw.GlyphStyle{Color: b.color, Radius: h * 0.7, Shape: diamondGlyph{}}, vg.Point{X: x, Y: trY(b.y)})
		}
	}
}

// DataRange implements plot.DataRanger: the bars' x extent.
func (l *laneBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = l.from, l.to
	for _, b := range l.bars {
		xmin, xmax = math.Min(xmin, b.x0), math.Max(xmax, b.x1)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

// barThumb is the legend's swatch of a bar (with its mark when marked).
type barThumb struct {
	color  color.Color
	marked bool
}

// Thumbnail implements plot.Thumbnailer.
func (t barThumb) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	c.FillPolygon(t.color, rect(c.Min.X, c.Max.X, mid-vg.Points(3), mid+vg.Points(3)))
	if t.marked {
		c.DrawGlyph(draw.GlyphStyle{Color: t.color, Radius: vg.Points(4.5), Shape: diamondGlyph{}}, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: mid})
	}
}

// diamondGlyph is a filled diamond: a square standing on a corner.
type diamondGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	c.FillPolygon(sty.Color, []vg.Point{{X: pt.X, Y: pt.Y - r}, {X: pt.X + r, Y: pt.Y}, {X: pt.X, Y: pt.Y + r}, {X: pt.X - r, Y: pt.Y}})
}
