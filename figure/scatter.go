package figure

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Points is one set of measured points, each optionally with an error bar
// from YLo[i] to YHi[i] (absolute values; NaN: no bar). Shape nil is a
// filled circle; Hollow draws a ring (the article's figures, say). A
// point with a NaN (or, on a log axis, a non-positive) value is left out.
type Points struct {
	Name     string
	X, Y     []float64
	YLo, YHi []float64
	Color    color.Color
	Shape    draw.GlyphDrawer
	Hollow   bool
	Radius   float64
}

// AddPoints adds each set of points (and their error bars) to p.
func AddPoints(p *plot.Plot, sets ...Points) error {
	for i, s := range sets {
		if s.Color == nil {
			s.Color = Color(i)
		}
		if err := addPoints(p, s); err != nil {
			return fmt.Errorf("points %q: %w", s.Name, err)
		}
	}
	return nil
}

func addPoints(p *plot.Plot, s Points) error {
	if len(s.X) != len(s.Y) {
		return fmt.Errorf("%d x values but %d y values", len(s.X), len(s.Y))
	}
	xys, bars := drawable(p, s)
	if len(xys) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle = glyph(s)
	if len(bars.xys) > 0 {
		eb, err := plotter.NewYErrorBars(bars)
		if err != nil {
			return err
		}
		eb.LineStyle = lineStyle(s.Color, 1.2)
		eb.CapWidth = vg.Points(6)
		p.Add(eb)
	}
	p.Add(sc)
	if s.Name != "" {
		p.Legend.Add(s.Name, sc)
	}
	return nil
}

func glyph(s Points) draw.GlyphStyle {
	g := draw.GlyphStyle{Color: s.Color, Radius: vg.Points(3), Shape: s.Shape}
	if s.Radius > 0 {
		g.Radius = vg.Points(s.Radius)
	}
	if g.Shape == nil {
		g.Shape = draw.CircleGlyph{}
		if s.Hollow {
			g.Shape = draw.RingGlyph{}
		}
	}
	return g
}

// drawable keeps the points a panel's axes can show, and their error bars.
func drawable(p *plot.Plot, s Points) (plotter.XYs, errBars) {
	_, logX := p.X.Scale.(plot.LogScale)
	_, logY := p.Y.Scale.(plot.LogScale)
	ok := func(x, y float64) bool { return finite(x, y) && (!logX || x > 0) && (!logY || y > 0) }
	var xys plotter.XYs
	var bars errBars
	for i := range s.X {
		if !ok(s.X[i], s.Y[i]) {
			continue
		}
		xys = append(xys, plotter.XY{X: s.X[i], Y: s.Y[i]})
		if i < len(s.YLo) && i < len(s.YHi) && ok(s.X[i], s.YLo[i]) && ok(s.X[i], s.YHi[i]) && s.YHi[i] > s.YLo[i] {
			bars.xys = append(bars.xys, plotter.XY{X: s.X[i], Y: s.Y[i]})
			bars.lo, bars.hi = append(bars.lo, s.YLo[i]), append(bars.hi, s.YHi[i])
		}
	}
	return xys, bars
}

// errBars are error bars from absolute bounds.
type errBars struct {
	xys    plotter.XYs
	lo, hi []float64
}

func (e errBars) Len() int                    { return len(e.xys) }
func (e errBars) XY(i int) (float64, float64) { return e.xys[i].X, e.xys[i].Y }

// YError returns the distances from the point to its bounds.
func (e errBars) YError(i int) (float64, float64) {
	return math.Max(0, e.xys[i].Y-e.lo[i]), math.Max(0, e.hi[i]-e.xys[i].Y)
}

// LogLogFit fits ln y = intercept + slope · ln x by least squares over the
// pairs where both are positive; ok is false with fewer than two.
func LogLogFit(xs, ys []float64) (slope, intercept float64, ok bool) {
	var lx, ly []float64
	for i := range xs {
		if i < len(ys) && xs[i] > 0 && ys[i] > 0 && finite(xs[i], ys[i]) {
			lx, ly = append(lx, math.Log(xs[i])), append(ly, math.Log(ys[i]))
		}
	}
	if len(lx) < 2 {
		return math.NaN(), math.NaN(), false
	}
	intercept, slope = stat.LinearRegression(lx, ly, nil, false)
	return slope, intercept, true
}

// Function samples f at n points over [x0, x1] (log-spaced when log) as
// a line; values f leaves undefined (NaN) are gaps.
func Function(name string, f func(float64) float64, x0, x1 float64, n int, log bool) Line {
	l := Line{Name: name}
	n = max(n, 2)
	for i := range n {
		t := float64(i) / float64(n-1)
		x := x0 + t*(x1-x0)
		if log {
			x = x0 * math.Pow(x1/x0, t)
		}
		l.X, l.Y = append(l.X, x), append(l.Y, f(x))
	}
	return l
}

// PowerLine is the fitted line y = e^intercept · x^slope over [x0, x1].
func PowerLine(name string, slope, intercept, x0, x1 float64) Line {
	return Function(name, func(x float64) float64 { return math.Exp(intercept) * math.Pow(x, slope) }, x0, x1, 24, true)
}

// HLine is a horizontal reference line at y across [x0, x1].
func HLine(name string, y, x0, x1 float64, c color.Color, dashes []vg.Length) Line {
	return Line{Name: name, X: []float64{x0, x1}, Y: []float64{y, y}, Color: c, Dashes: dashes, Width: 1.2}
}

// Band is a shaded rectangle in data coordinates: x in [X0, X1], y in
// [Y0, Y1] (a theory band, an article's range).
type Band struct {
	Name           string
	X0, X1, Y0, Y1 float64
	Color          color.Color
}

// AddBands fills each band on p, with a legend entry for the named ones
// (the first of each name).
func AddBands(p *plot.Plot, bands ...Band) error {
	named := map[string]bool{}
	for _, b := range bands {
		if !finite(b.X0, b.X1, b.Y0, b.Y1) {
			continue
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b.X0, Y: b.Y0}, {X: b.X1, Y: b.Y0}, {X: b.X1, Y: b.Y1}, {X: b.X0, Y: b.Y1}})
		if err != nil {
			return fmt.Errorf("band %q: %w", b.Name, err)
		}
		poly.Color, poly.LineStyle.Width = b.Color, 0
		p.Add(poly)
		if b.Name != "" && !named[b.Name] {
			named[b.Name] = true
			p.Legend.Add(b.Name, poly)
		}
	}
	return nil
}

// Light returns c at the given opacity (0–255) for bands and fills.
func Light(c color.Color, alpha uint8) color.NRGBA {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: alpha}
}

// OpenSquare is a glyph: the outline of a square, 1.2 points wide. Drawn
// around a dot at the same place it hides none of it, so a measurement
// and another one (or an article's figure) that coincide both show.
type OpenSquare struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (OpenSquare) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(lineStyle(sty.Color, 1.2))
	r := sty.Radius
	var p vg.Path
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y + r})
	p.Close()
	c.Stroke(p)
}
