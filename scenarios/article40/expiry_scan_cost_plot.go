package article40

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
)

// Plots draws the cost of one expiry pass against the registry's size on
// log–log axes: the median pass of the full scan, of the min-heap and of
// the control walk (nothing due), each with its fitted power line (the
// slope and its band in the legend), and the article's Python timings.
func (s *expiryScanCost) Plots(h *history.History) ([]figure.Plot, error) {
	m := s.measure(h)
	if len(m.sizes) == 0 {
		return nil, fmt.Errorf("expiry-scan-cost: no pass was recorded")
	}
	p := figure.NewPanel(fmt.Sprintf("Cost of one expiry pass vs registry size (%d due per pass; median of %d passes)", s.Due, s.Passes),
		"instances N (log)", "one pass (ms, log)")
	figure.LogX(p)
	figure.LogY(p)
	type arm struct {
		name  string
		pick  func(sizeCost) strategyCost
		fit   []float64
		slope float64
		band  func([]float64) (float64, float64)
		color color.Color
		mark  figure.Points // the medians' marker: the heap's an open square round the control's dot, which it meets
	}
	arms := []arm{
		{"full scan", func(c sizeCost) strategyCost { return c.scan }, m.scanFit, m.scanSlope,
			func(f []float64) (float64, float64) { return scanSlopeBand(f, s.Due) }, figure.Blue, figure.Points{Radius: 3}},
		{"min-heap", func(c sizeCost) strategyCost { return c.heap }, m.heapFit, m.heapSlope, heapSlopeBand, figure.Orange,
			figure.Points{Shape: figure.OpenSquare{}, Radius: 5}},
		{"control: walk, nothing due", func(c sizeCost) strategyCost { return c.walk }, m.walkFit, m.walkSlope, walkSlopeBand, figure.Green,
			figure.Points{Radius: 2.5}},
	}
	for _, a := range arms {
		xs, ys := costSeries(m.sizes, a.pick)
		slope, icpt, ok := figure.LogLogFit(xs, ys)
		if ok {
			lo, hi := a.band(a.fit)
			line := figure.PowerLine(fmt.Sprintf("%s (fit: slope %.2f, band %.2f–%.2f)", a.name, a.slope, lo, hi), slope, icpt, xs[0], xs[len(xs)-1])
			if err := figure.AddLines(p, line.Styled(a.color, figure.Dashed)); err != nil {
				return nil, err
			}
		}
		mark := a.mark
		mark.Name, mark.X, mark.Y, mark.Color = a.name+": median pass", xs, ys, a.color
		if err := figure.AddPoints(p, mark); err != nil {
			return nil, err
		}
	}
	if s.Due == articleDue {
		if err := figure.AddPoints(p,
			figure.Points{Name: "article (Python): full scan", X: articleSizes, Y: articleScanMs, Color: figure.Blue, Hollow: true, Radius: 5},
			figure.Points{Name: "article (Python): min-heap", X: articleSizes, Y: articleHeapMs, Color: figure.Orange, Hollow: true, Radius: 5},
		); err != nil {
			return nil, err
		}
	}
	figure.Pad(p, 0.03, 0.04) // the rings at the ends drawn whole
	f := figure.One("scan-cost", p)
	f.Height = 4 * vg.Inch
	return []figure.Plot{f}, nil
}

// costSeries returns the sizes and median passes of one strategy.
func costSeries(sizes []sizeCost, pick func(sizeCost) strategyCost) (xs, ys []float64) {
	for _, c := range sizes {
		if sc := pick(c); sc.passes > 0 && sc.ms > 0 {
			xs, ys = append(xs, float64(c.n)), append(ys, sc.ms)
		}
	}
	return xs, ys
}
