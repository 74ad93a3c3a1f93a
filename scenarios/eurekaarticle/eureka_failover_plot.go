package eurekaarticle

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/scenarios"
)

// Plots draws the failover in model seconds: every fetch of each
// scheduler (answered at once, answered by the next server after a failed
// attempt, failed) with the kill shaded; the tasks per 10 model seconds;
// and the switch time against the fetch interval beside the band of the
// source's rule and the article's 15–30 s.
func (s *eurekaFailover) Plots(h *history.History) ([]figure.Plot, error) {
	m, ok, err := s.measure(h)
	switch {
	case err != nil:
		return nil, fmt.Errorf("eureka-failover: %w", err)
	case !ok:
		return nil, fmt.Errorf("eureka-failover: no kill of a Eureka server was recorded")
	}
	ws, ms := m.data.modelWindows(h, time.Second)
	fetches, err := s.fetchPanel(m, ws, ms)
	if err != nil {
		return nil, err
	}
	tasks, err := s.taskPanel(h, m, ws, ms)
	if err != nil {
		return nil, err
	}
	sw, err := s.switchPanel(m)
	if err != nil {
		return nil, err
	}
	figure.ShareX(fetches, tasks)
	f := figure.Stack("failover", fetches, tasks, sw)
	f.Height = vg.Inch * 8.4
	return []figure.Plot{f}, nil
}

// fetchPanel puts each scheduler's fetches on its own row.
func (s *eurekaFailover) fetchPanel(m failoverMeasure, ws []figure.Window, ms []figure.Mark) (*plot.Plot, error) {
	p := figure.NewPanel("Registry fetches of each scheduler around the kill", "model seconds since the run started", "scheduler")
	figure.AddWindows(p, ws, ms)
	first := figure.Points{Name: "answered by its server", Color: figure.Green, Radius: 3}
	next := figure.Points{Name: "answered by the next server after a failed attempt", Color: figure.Orange, Radius: 4.5, Shape: draw.SquareGlyph{}}
	failed := figure.Points{Name: "no server answered", Color: figure.Vermilion, Radius: 4.5, Shape: draw.CrossGlyph{}}
	var names []string
	for i, sd := range m.data.Schedulers {
		names = append(names, sd.Name)
		for _, ev := range sd.Fetches {
			x, y := ev.At.Seconds(), float64(i)
			switch {
			case !ev.OK:
				failed.X, failed.Y = append(failed.X, x), append(failed.Y, y)
			case len(ev.Attempts) > 1:
				next.X, next.Y = append(next.X, x), append(next.Y, y)
			default:
				first.X, first.Y = append(first.X, x), append(first.Y, y)
			}
		}
	}
	if err := figure.AddPoints(p, first, next, failed); err != nil {
		return nil, err
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(names))-0.4
	p.X.Min, p.X.Max = 0, m.data.Duration.Seconds()
	return p, nil
}

// taskPanel is each scheduler's ok and failed tasks per 10 model seconds;
// the schedulers send at the same rate, so their lines coincide: each is
// drawn narrower than the one before, over it.
func (s *eurekaFailover) taskPanel(h *history.History, m failoverMeasure, ws []figure.Window, ms []figure.Mark) (*plot.Plot, error) {
	n := int(math.Ceil(float64(m.data.Duration) / float64(failoverWindow)))
	var lines []figure.Line
	for i, sd := range m.data.Schedulers {
		ok, fail := m.data.okPerWindow(h.Ops, sd.Name, failoverWindow, n)
		xs := figure.Index(n, failoverWindow.Seconds())
		w := math.Max(4-2*float64(i), 1.2) // each scheduler's lines narrower than the last: where they coincide, both show
		lines = append(lines,
			figure.Line{Name: sd.Name + ": ok", X: xs, Y: figure.Floats(ok), Color: figure.Color(i), Step: true, Width: w},
			figure.Line{Name: sd.Name + ": failed", X: xs, Y: figure.Floats(fail), Color: figure.Color(i), Step: true, Dashes: figure.Dotted, Width: w})
	}
	return figure.TimeSeries("Tasks per 10 model seconds: scheduling never stops", "model seconds since the run started",
		"tasks per 10 model s", ws, ms, lines...)
}

// switchPanel is the switch time against the fetch interval.
func (s *eurekaFailover) switchPanel(m failoverMeasure) (*plot.Plot, error) {
	p := figure.NewPanel("Switch to a live server after the kill vs the fetch interval", "fetch interval (model s)", "switch after the kill (s)")
	top := 0.0
	pts := figure.Points{Name: "measured", Color: figure.Blue, Radius: 4}
	var bands []figure.Band
	for _, sm := range m.scheds {
		f := sm.fetch.Seconds()
		top = math.Max(top, f)
		bands = append(bands, figure.Band{Name: "band: next fetch tick, 0 … fetch + 1 s", X0: f - 0.6, X1: f + 0.6, Y0: 0, Y1: f + 1,
			Color: figure.Light(figure.Sky, 0x60)})
		if sm.switched {
			pts.X, pts.Y = append(pts.X, f), append(pts.Y, sm.switchAfter.Seconds())
		}
	}
	bands = append(bands, figure.Band{Name: "article: about 15–30 s", X0: 0, X1: top + 5, Y0: 15, Y1: 30, Color: figure.Light(figure.Orange, 0x30)})
	if err := figure.AddBands(p, bands...); err != nil {
		return nil, err
	}
	if err := figure.AddPoints(p, pts); err != nil {
		return nil, err
	}
	p.X.Min, p.Y.Min = 0, 0
	figure.Pad(p, 0, 0.04) // a switch at once (0 s) is a whole dot, not half of one under the axis
	return p, nil
}

// Curves are what a sweep over --fetches (one interval per point) plots:
// the switch time and the failed fetch attempts of that scheduler, and
// the failed tasks.
func (s *eurekaFailover) Curves() []scenarios.Curve {
	k, name := fetchKey(s.Fetches[0]), schedName(s.Fetches[0])
	return []scenarios.Curve{
		{Name: "switch after the kill", Metric: "switch_s" + k, Check: "switch after the kill (" + name + ")", Unit: "s"},
		{Name: "failed fetch attempts", Metric: "failed_attempts" + k, Check: "failed fetch attempts (" + name + ")"},
		{Name: "failed tasks", Metric: "tasks.fail", Check: "failed tasks"},
	}
}
