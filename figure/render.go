package figure

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PNGDPI is the resolution of the PNG renderings.
const PNGDPI = 110

// Default sizes of a figure.
var (
	DefaultWidth     = vg.Inch * 9
	DefaultRowHeight = vg.Inch * 3
)

// size returns the figure's width and height.
func (f Plot) size() (w, h vg.Length) {
	w, h = f.Width, f.Height
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultRowHeight * vg.Length(f.rows())
	}
	return w, h
}

func (f Plot) cols() int { return max(f.Cols, 1) }

func (f Plot) rows() int { return (len(f.Panels) + f.cols() - 1) / f.cols() }

// svgFonts names fallbacks beside the Liberation font the SVG refers to
// (Arial and Helvetica have its metrics), so a viewer without it keeps the
// layout.
var svgFonts = [][2]string{
	{"font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"},
}

// SVG renders the figure as an SVG document.
func SVG(f Plot) ([]byte, error) {
	if len(f.Panels) == 0 {
		return nil, fmt.Errorf("figure %s has no panel", f.Name)
	}
	w, h := f.size()
	c := vgsvg.New(w, h)
	if err := f.draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("writing the SVG of %s: %w", f.Name, err)
	}
	out := buf.Bytes()
	for _, r := range svgFonts {
		out = bytes.ReplaceAll(out, []byte(r[0]), []byte(r[1]))
	}
	return out, nil
}

// PNG renders the figure as a PNG image at PNGDPI.
func PNG(f Plot) ([]byte, error) {
	if len(f.Panels) == 0 {
		return nil, fmt.Errorf("figure %s has no panel", f.Name)
	}
	w, h := f.size()
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
	if err := f.draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("writing the PNG of %s: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

// legendGap separates a panel from its legend.
const legendGap = vg.Length(8)

// draw lays the panels out in their grid, each with its legend in a
// column to its right, and draws them on a white background. A panic of
// the plotting library (a non-positive value on a log axis) is returned
// as an error.
func (f Plot) draw(dc draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing figure %s: %v", f.Name, r)
		}
	}()
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	grid := make([][]*plot.Plot, f.rows())
	for i := range grid {
		grid[i] = make([]*plot.Plot, f.cols())
	}
	legendW := vg.Length(0)
	for i, p := range f.Panels {
		grid[i/f.cols()][i%f.cols()] = p
		legendW = max(legendW, legendWidth(p, dc))
	}
	tiles := draw.Tiles{Rows: f.rows(), Cols: f.cols(), PadX: vg.Points(14), PadY: vg.Points(10),
		PadTop: vg.Points(6), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	cans := plot.Align(grid, tiles, dc)
	f.reshapeRows(cans, tiles, dc)
	for i, p := range f.Panels {
		drawPanel(p, cans[i/f.cols()][i%f.cols()], legendW)
	}
	return nil
}

// reshapeRows gives the rows of cans the heights of f.RowHeights, in
// proportion, keeping the horizontal extents plot.Align chose (they align
// the panels' data areas and do not depend on the heights).
func (f Plot) reshapeRows(cans [][]draw.Canvas, t draw.Tiles, dc draw.Canvas) {
	if len(f.RowHeights) != len(cans) {
		return
	}
	var sum vg.Length
	for _, h := range f.RowHeights {
		sum += max(h, 0)
	}
	avail := dc.Max.Y - dc.Min.Y - t.PadTop - t.PadBottom - t.PadY*vg.Length(len(cans)-1)
	if sum <= 0 || avail <= 0 {
		return
	}
	top := dc.Max.Y - t.PadTop
	for j, row := range cans {
		h := avail * max(f.RowHeights[j], 0) / sum
		for i := range row {
			row[i].Max.Y, row[i].Min.Y = top, top-h
		}
		top -= h + t.PadY
	}
}

// legendWidth is the width of p's legend plus the gap before it (0 when
// the legend is empty).
func legendWidth(p *plot.Plot, dc draw.Canvas) vg.Length {
	r := p.Legend.Rectangle(dc)
	if w := r.Max.X - r.Min.X; w > 0 {
		return w + legendGap
	}
	return 0
}

// drawPanel draws p in c: its title centred over the whole tile, the
// plot without its legend, and the legend in a column of width legendW at
// the tile's right, level with the top of the data area.
func drawPanel(p *plot.Plot, c draw.Canvas, legendW vg.Length) {
	top := c.Max.Y
	if p.Title.Text != "" {
		descent := p.Title.TextStyle.FontExtents().Descent
		c.FillText(p.Title.TextStyle, vg.Point{X: c.Center().X, Y: c.Max.Y + descent}, p.Title.Text)
		top -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	body := draw.Crop(c, 0, -legendW, 0, top-c.Max.Y)
	q := *p
	q.Legend, q.Title.Text = plot.NewLegend(), ""
	if _, log := p.Y.Scale.(plot.LogScale); log && p.Y.Label.Text != "" {
		body = drawYLabel(&q, body)
	}
	q.Draw(body)
	if legendW == 0 {
		return
	}
	strip := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: c.Max.X - legendW + legendGap, Y: c.Min.Y},
		Max: vg.Point{X: c.Max.X, Y: top},
	}}
	leg := p.Legend
	leg.Top, leg.Left = true, true
	leg.Draw(strip)
}

// drawYLabel draws a log axis's y label beside the data area and returns
// the rest of the canvas for q, whose label it clears: gonum centres the
// label at the data midpoint of the axis (half its maximum on a log axis),
// which pads the panel's top by half the label's length.
func drawYLabel(q *plot.Plot, c draw.Canvas) draw.Canvas {
	sty := q.Y.Label.TextStyle
	text := q.Y.Label.Text
	h, descent := sty.Height(text), sty.FontExtents().Descent
	q.Y.Label.Text = ""
	rest := draw.Crop(c, h+descent+q.Y.Label.Padding, 0, 0, 0)
	sty.Rotation += math.Pi / 2
	data := q.DataCanvas(rest)
	c.FillText(sty, vg.Point{X: c.Min.X + h - descent, Y: data.Center().Y}, text)
	return rest
}

// finite reports whether every value is a finite number.
func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
