package figure

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// rowHeight is the share of a row its line spans from 0 to the top value;
// the rest keeps two rows' lines apart.
const rowHeight = 0.75

// Row is one row of a Rows panel: its line (named in the legend) and the
// short label the y axis gives the row.
type Row struct {
	Label string
	Line  Line
}

// Rows returns a panel with one row per line, top to bottom, each line
// drawn in its row from 0 (the row's dotted floor) to top (its dotted
// ceiling), over the fault windows and marks: lines that would coincide
// on one axis (a server's list and its clients', equal but for when each
// changed) each show on their own, on one time axis. The y axis names
// each row; the title should say what the rows span.
func Rows(title, xLabel string, ws []Window, ms []Mark, top float64, rows ...Row) (*plot.Plot, error) {
	if len(rows) == 0 || !(top > 0) {
		return nil, fmt.Errorf("%s: no row to draw", title)
	}
	p, grid := newPanel(title, xLabel, "")
	grid.Horizontal.Color = nil // the rows' floors and ceilings instead
	AddWindows(p, ws, ms)
	lines := make([]Line, len(rows))
	for i, r := range rows {
		lines[i] = r.Line
	}
	x0, x1 := lineSpan(lines)
	ticks := make([]plot.Tick, 0, len(rows))
	for i, l := range lines {
		base := float64(len(lines) - 1 - i)
		for _, y := range []float64{base, base + rowHeight} {
			guide := Line{X: []float64{x0, x1}, Y: []float64{y, y}, Color: Grey, Width: 0.5, Dashes: Dotted}
			if err := AddLines(p, guide); err != nil {
				return nil, err
			}
		}
		scaled := l
		scaled.Y = make([]float64, len(l.Y))
		for j, y := range l.Y {
			scaled.Y[j] = base + rowHeight*y/top
		}
		if err := AddLines(p, scaled); err != nil {
			return nil, fmt.Errorf("%s: %w", title, err)
		}
		ticks = append(ticks, plot.Tick{Value: base + rowHeight/2, Label: rows[i].Label})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	p.Y.Min, p.Y.Max = -0.15, float64(len(lines)-1)+rowHeight+0.15
	return p, nil
}

// RowsHeight is the height a Rows panel of n rows needs.
func RowsHeight(n int) vg.Length { return vg.Inch * (1.2 + 0.45*vg.Length(n)) }

// lineSpan returns the smallest and largest x of the lines.
func lineSpan(lines []Line) (x0, x1 float64) {
	x0, x1 = math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, x := range l.X {
			if finite(x) {
				x0, x1 = math.Min(x0, x), math.Max(x1, x)
			}
		}
	}
	return x0, x1
}
