package figure

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Text is a short label drawn at (X, Y) in data coordinates, centred
// above the point (a bar's count, a mark's value).
type Text struct {
	X, Y  float64
	Label string
	Color color.Color
	// Rotate draws the label upwards (90°), its start at the point.
	Rotate bool
	// Beside writes the label to the right of the point instead, level
	// with it (clear of a line through the point's second).
	Beside bool
}

// AddTexts draws each text on p, 2 points above its place (or beside it).
func AddTexts(p *plot.Plot, ts ...Text) error {
	for _, t := range ts {
		if !finite(t.X, t.Y) || t.Label == "" {
			continue
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: t.X, Y: t.Y}}, Labels: []string{t.Label}})
		if err != nil {
			return fmt.Errorf("text %q: %w", t.Label, err)
		}
		sty := text.Style{Color: t.Color, Font: sans(8), Handler: plot.DefaultTextHandler, XAlign: text.XCenter, YAlign: text.YBottom}
		if sty.Color == nil {
			sty.Color = color.Gray{Y: 0x30}
		}
		l.Offset = vg.Point{Y: vg.Points(2)}
		switch {
		case t.Rotate:
			sty.Rotation, sty.XAlign, sty.YAlign = 1.5707963267948966, text.XLeft, text.YCenter
		case t.Beside:
			sty.XAlign, sty.YAlign, l.Offset = text.XLeft, text.YBottom, vg.Point{X: vg.Points(6), Y: vg.Points(1)}
		}
		l.TextStyle = []text.Style{sty}
		p.Add(l)
	}
	return nil
}

// fewShare is the share of a panel's height below which a second's failed
// count is marked: 2 of 40 is 5 % of the axis, 6 pixels in a panel.
const fewShare = 0.06

// maxFewLabels is how many marked seconds of a panel get their count
// written beside them; more would cover each other.
const maxFewLabels = 6

// markFewFailures marks each second whose failed count is too small to see
// against ymax (0 < n < fewShare·ymax) with a triangle in the failed colour
// over the second's middle, and writes its count beside it ("1 failed"),
// so that a lone failure among 40 ok a second shows.
func markFewFailures(p *plot.Plot, fail []int, ymax float64) error {
	var pts Points
	var texts []Text
	for i, n := range fail {
		if n <= 0 || float64(n) >= fewShare*ymax {
			continue
		}
		x := float64(i) + 0.5
		pts.X, pts.Y = append(pts.X, x), append(pts.Y, float64(n))
		texts = append(texts, Text{X: x, Y: float64(n), Label: fmt.Sprintf("%d failed", n), Color: Fail, Beside: true})
	}
	if len(pts.X) == 0 {
		return nil
	}
	pts.Name, pts.Color, pts.Shape, pts.Radius = "a few failed (marked)", Fail, draw.PyramidGlyph{}, 3.5
	if err := AddPoints(p, pts); err != nil {
		return err
	}
	if len(texts) > maxFewLabels {
		return nil
	}
	return AddTexts(p, texts...)
}
