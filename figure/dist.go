package figure

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Group is one group of a distribution plot: its values and, where a rule
// predicts where they must fall, the band [BandLo, BandHi] (NaN: none).
type Group struct {
	Label          string
	Values         []float64
	BandLo, BandHi float64
}

// Distribution returns a panel with one column per group: its band (light
// blue), a box plot (median, quartiles, whiskers to 1.5 IQR) and every
// value as a dot spread sideways so that equal values stay visible.
// bandName names the bands in the legend ("" when there are none).
func Distribution(title, yLabel, bandName string, groups []Group) (*plot.Plot, error) {
	p := NewPanel(title, "", yLabel)
	p.X.Tick.Label.Font = sans(9)
	names := make([]string, len(groups))
	bands := make([]Band, len(groups))
	for i, g := range groups {
		names[i] = g.Label
		bands[i] = Band{Name: bandName, X0: float64(i) - 0.42, X1: float64(i) + 0.42, Y0: g.BandLo, Y1: g.BandHi, Color: Light(Sky, 0x50)}
	}
	if err := AddBands(p, bands...); err != nil {
		return nil, err
	}
	for i, g := range groups {
		if err := addGroup(p, i, g); err != nil {
			return nil, fmt.Errorf("%s: group %q: %w", title, g.Label, err)
		}
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(groups))-0.4
	return p, nil
}

// addGroup draws one group's box and dots at x = i.
func addGroup(p *plot.Plot, i int, g Group) error {
	vals := finiteOnly(g.Values)
	if len(vals) == 0 {
		return nil
	}
	box, err := plotter.NewBoxPlot(vg.Points(26), float64(i), plotter.Values(vals))
	if err != nil {
		return err
	}
	box.BoxStyle = lineStyle(Black, 1)
	box.MedianStyle = lineStyle(Black, 2)
	box.WhiskerStyle = lineStyle(Black, 1)
	box.GlyphStyle.Radius = 0 // the dots show the outliers
	p.Add(box)
	xys := make(plotter.XYs, len(vals))
	for j, v := range vals {
		xys[j] = plotter.XY{X: DotX(i, j, len(vals)), Y: v}
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: Light(Color(i), 0xB0), Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	return nil
}

// DotX is where Distribution draws the j-th of the n finite values of
// group i (to mark one of them).
func DotX(i, j, n int) float64 { return float64(i) + spread(j, n) }

// spread is a deterministic sideways offset for the j-th of n dots (the
// golden-ratio sequence, within ±0.3 of the column).
func spread(j, n int) float64 {
	if n == 1 {
		return 0
	}
	frac := math.Mod(float64(j)*0.6180339887, 1)
	return 0.6 * (frac - 0.5)
}

func finiteOnly(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if finite(x) {
			out = append(out, x)
		}
	}
	return out
}

// Bar is one series of a grouped bar chart: a value per category and,
// optionally, an error bar per value (absolute bounds; NaN: none).
type Bar struct {
	Name   string
	Values []float64
	Lo, Hi []float64
	Color  color.Color
	// Labels, when given, are written upwards above each bar (its count,
	// so that a bar of 0 or of 1 in 1,200 can be read), and from the axis
	// where a value is NaN (a category the series has no value for: "not
	// run"), in grey.
	Labels []string
}

// Bars returns a grouped bar chart: one cluster per category, one bar per
// series within it, with error bars where given. A NaN value draws no bar;
// a bar of 0 is a thick line of its colour on the axis, and every series
// is in the legend, with bars or without.
func Bars(title, yLabel string, categories []string, series ...Bar) (*plot.Plot, error) {
	return BarsOver(title, yLabel, categories, nil, series...)
}

// BarsOver is Bars over bands (a rule's prediction per category), drawn
// first so that a band never covers a bar.
func BarsOver(title, yLabel string, categories []string, bands []Band, series ...Bar) (*plot.Plot, error) {
	if len(categories) == 0 {
		return nil, fmt.Errorf("%s: a bar chart needs at least one category", title)
	}
	p := NewPanel(title, "", yLabel)
	if err := AddBands(p, bands...); err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	n := float64(len(series))
	width := 0.8 / n
	var labels []Text
	for si, s := range series {
		if s.Color == nil {
			s.Color = Color(si)
		}
		var first *plotter.Polygon
		var bars Points
		for ci := range categories {
			x := float64(ci) - 0.4 + width*(float64(si)+0.5)
			if ci < len(s.Labels) {
				labels = append(labels, barLabel(s, ci, x))
			}
			if ci >= len(s.Values) || !finite(s.Values[ci]) {
				continue
			}
			poly, err := plotter.NewPolygon(plotter.XYs{{X: x - width*0.45, Y: 0}, {X: x + width*0.45, Y: 0},
				{X: x + width*0.45, Y: s.Values[ci]}, {X: x - width*0.45, Y: s.Values[ci]}})
			if err != nil {
				return nil, fmt.Errorf("%s: bar %q: %w", title, s.Name, err)
			}
			poly.Color, poly.LineStyle = s.Color, lineStyle(Black, 0.5)
			p.Add(poly)
			if first == nil {
				first = poly
			}
			if s.Values[ci] == 0 { // a bar of 0 has no height: its colour as a thick line on the axis
				if err := AddLines(p, Line{X: []float64{x - width*0.45, x + width*0.45}, Y: []float64{0, 0}, Color: s.Color, Width: 3}); err != nil {
					return nil, err
				}
			}
			if ci < len(s.Lo) && ci < len(s.Hi) {
				bars.X, bars.Y = append(bars.X, x), append(bars.Y, s.Values[ci])
				bars.YLo, bars.YHi = append(bars.YLo, s.Lo[ci]), append(bars.YHi, s.Hi[ci])
			}
		}
		if first == nil { // no bar: the legend still names its colour
			first, _ = plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}})
			first.Color, first.LineStyle = s.Color, lineStyle(Black, 0.5)
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, first)
		}
		if len(bars.X) > 0 {
			bars.Color, bars.Radius = Black, 0.01
			if err := AddPoints(p, bars); err != nil {
				return nil, err
			}
		}
	}
	p.NominalX(categories...)
	p.X.Min, p.X.Max = -0.6, float64(len(categories))-0.4
	FloorY(p)
	if err := AddTexts(p, labels...); err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	return p, nil
}

// barLabel is series s's label of category ci at x: above its bar, or
// from the axis in grey where it has no value.
func barLabel(s Bar, ci int, x float64) Text {
	t := Text{X: x, Y: 0, Label: s.Labels[ci], Color: Black, Rotate: true}
	if ci < len(s.Values) && finite(s.Values[ci]) {
		t.Y = s.Values[ci]
	} else {
		t.Color = Grey
	}
	return t
}
