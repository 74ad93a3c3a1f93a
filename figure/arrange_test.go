package figure

import (
	"math"
	"testing"
)

// TestShareXGivesEveryPanelTheUnion: stacked panels of one time axis get
// one range, the union of theirs, so that each x is at one place.
func TestShareXGivesEveryPanelTheUnion(t *testing.T) {
	a, b := NewPanel("a", "t", "y"), NewPanel("b", "t", "y")
	if err := AddLines(a, Line{X: []float64{-2, 25}, Y: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	if err := AddLines(b, Line{X: []float64{0, 30}, Y: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	ShareX(a, b)
	for _, p := range []struct {
		name     string
		min, max float64
	}{{"a", a.X.Min, a.X.Max}, {"b", b.X.Min, b.X.Max}} {
		if p.min != -2 || p.max != 30 {
			t.Errorf("panel %s spans %g … %g, want -2 … 30", p.name, p.min, p.max)
		}
	}
}

// TestNestNarrowsEachLineOverTheLast: lines that may coincide are drawn
// each narrower than the one before (under it), the last 1.5 points, and
// the first never far wider than the spread allows.
func TestNestNarrowsEachLineOverTheLast(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8} {
		ls := Nest(make([]Line, n))
		if got := ls[n-1].Width; got != 1.5 {
			t.Errorf("n=%d: the last line is %g points wide, want 1.5", n, got)
		}
		for i := 1; i < n; i++ {
			if !(ls[i-1].Width > ls[i].Width) {
				t.Errorf("n=%d: line %d (%g) is not wider than line %d (%g)", n, i-1, ls[i-1].Width, i, ls[i].Width)
			}
		}
		if ls[0].Width > 1.5+nestSpread+1e-9 {
			t.Errorf("n=%d: the first line is %g points wide", n, ls[0].Width)
		}
	}
}

// TestPadWidensBothAxes: linear axes by a share of their range, log axes
// by a share of their decades.
func TestPadWidensBothAxes(t *testing.T) {
	p := NewPanel("p", "x", "y")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 10, 1, 100
	LogY(p)
	Pad(p, 0.1, 0.5)
	if p.X.Min != -1 || p.X.Max != 11 {
		t.Errorf("x spans %g … %g, want -1 … 11", p.X.Min, p.X.Max)
	}
	if math.Abs(p.Y.Min-0.1) > 1e-9 || math.Abs(p.Y.Max-1000) > 1e-6 {
		t.Errorf("log y spans %g … %g, want 0.1 … 1000", p.Y.Min, p.Y.Max)
	}
}
