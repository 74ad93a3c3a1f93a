package figure

import (
	"math"

	"gonum.org/v1/plot"
)

// ShareX gives every panel the union of their x ranges, so that panels
// stacked over one time axis put each x at the same place (minute 0 of a
// partition under minute 0): call it once every panel is drawn. Panels
// with a nominal x axis (categories) must not be passed.
func ShareX(ps ...*plot.Plot) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		if finite(p.X.Min, p.X.Max) {
			lo, hi = math.Min(lo, p.X.Min), math.Max(hi, p.X.Max)
		}
	}
	if lo > hi {
		return
	}
	for _, p := range ps {
		p.X.Min, p.X.Max = lo, hi
	}
}

// Nest gives lines that may lie on top of each other decreasing widths,
// the first the widest (drawn first, underneath) and the last 1.5 points:
// where they coincide each shows as a band around the next, where they
// part each is a line of its own. It returns lines.
func Nest(lines []Line) []Line {
	step := nestStep
	if n := len(lines); n > 1 {
		step = math.Min(nestStep, nestSpread/float64(n-1))
	}
	for i := range lines {
		lines[i].Width = 1.5 + step*float64(len(lines)-1-i)
	}
	return lines
}

// nestStep is how much wider each nested line is than the one over it;
// nestSpread bounds how much wider the first is than the last.
const nestStep, nestSpread = 1.6, 6.5

// Pad widens p's axes by frac of their range on each side (by that
// fraction of the decades on a log axis), so that markers at the extremes
// are drawn whole instead of cut by the frame.
func Pad(p *plot.Plot, fracX, fracY float64) {
	padAxis(&p.X, fracX)
	padAxis(&p.Y, fracY)
}

func padAxis(a *plot.Axis, frac float64) {
	if frac <= 0 || !finite(a.Min, a.Max) {
		return
	}
	if _, log := a.Scale.(plot.LogScale); log {
		if a.Min > 0 && a.Max > a.Min {
			k := math.Pow(a.Max/a.Min, frac)
			a.Min, a.Max = a.Min/k, a.Max*k
		}
		return
	}
	d := a.Max - a.Min
	if d <= 0 {
		d = math.Max(math.Abs(a.Max), 1)
	}
	a.Min, a.Max = a.Min-frac*d, a.Max+frac*d
}
