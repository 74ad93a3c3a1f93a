package eurekaarticle

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/worlds/eureka/eurekamodel"
)

// drillPlotWindow is the width of the drill's failed-share time series.
const drillPlotWindow = 10 * time.Second

// Plots draws task success against the number of retries, measured (with
// its Wilson 95 % interval) beside the exact theory of distinct picks, the
// independent-pick approximation and the article's ≥ 99 %; and each
// scheduler's failed share per 10 model seconds with the faults shaded.
func (s *eurekaDrill) Plots(h *history.History) ([]figure.Plot, error) {
	m, missing := s.measure(h)
	if missing != "" {
		return nil, fmt.Errorf("eureka-drill: %s", missing)
	}
	succ, err := s.successPanel(m)
	if err != nil {
		return nil, err
	}
	series, err := s.failedPanel(h, m)
	if err != nil {
		return nil, err
	}
	f := figure.Stack("drill", succ, series)
	f.Height = vg.Inch * 6.4
	return []figure.Plot{f}, nil
}

// successPanel is success (%) against R.
func (s *eurekaDrill) successPanel(m drillMeasure) (*plot.Plot, error) {
	k, n := len(m.dead), s.eu.Workers
	p := figure.NewPanel(fmt.Sprintf("Task success vs retries while %d of %d workers are dead but listed", k, n),
		"retries per task R (each on another worker)", "tasks that succeeded (%)")
	maxR := float64(slices.Max(s.Retries))
	exact := figure.Function(fmt.Sprintf("exact: 1 − C(%d, R+1)/C(%d, R+1)", k, n),
		func(r float64) float64 { return 100 * eurekamodel.DistinctSuccess(n, k, int(math.Round(r))) }, 0, maxR, int(maxR)+1, false)
	exact.Points = true
	indep := figure.Function(fmt.Sprintf("independent picks: 1 − (%d/%d)^(R+1)", k, n),
		func(r float64) float64 {
			return 100 * eurekamodel.IndependentSuccess(float64(k)/float64(n), int(math.Round(r)))
		}, 0, maxR, int(maxR)+1, false)
	indep.Points = true
	lines := []figure.Line{exact.Styled(figure.Black, figure.Dashed), indep.Styled(figure.Grey, figure.Dotted)}
	if maxR >= 3 {
		lines = append(lines, figure.HLine("article: above 99 % with at least 3 retries", 99, 2.85, maxR+0.15, figure.Vermilion, nil))
	}
	if err := figure.AddLines(p, lines...); err != nil {
		return nil, err
	}
	pts := figure.Points{Name: "measured (Wilson 95 % interval)", Color: figure.Blue, Radius: 3.5}
	for _, row := range m.rows {
		lo, hi := report.Wilson(row.n-row.fail, row.n)
		pts.X, pts.Y = append(pts.X, float64(row.retries)), append(pts.Y, 100*(1-share(row.fail, row.n)))
		pts.YLo, pts.YHi = append(pts.YLo, 100*lo), append(pts.YHi, 100*hi)
	}
	if err := figure.AddPoints(p, pts); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = -0.2, maxR+0.2
	p.Y.Max = math.Max(p.Y.Max, 100) // a share: up to 100 %, and the dot there whole
	figure.Pad(p, 0, 0.04)
	var ticks []plot.Tick
	for r := 0; r <= int(maxR); r++ {
		ticks = append(ticks, plot.Tick{Value: float64(r), Label: fmt.Sprint(r)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return p, nil
}

// failedPanel is each scheduler's failed share per 10 model seconds.
func (s *eurekaDrill) failedPanel(h *history.History, m drillMeasure) (*plot.Plot, error) {
	ws, ms := m.data.modelWindows(h, time.Second)
	n := int(math.Ceil(float64(m.data.Duration) / float64(drillPlotWindow)))
	var lines []figure.Line
	for i, r := range s.Retries {
		ok, fail := m.data.okPerWindow(h.Ops, retryName(r), drillPlotWindow, n)
		l := figure.Line{Name: fmt.Sprintf("R = %d", r), Color: figure.Color(i), Step: true}
		for j := range ok {
			l.X, l.Y = append(l.X, (time.Duration(j)*drillPlotWindow).Seconds()), append(l.Y, 100*share(fail[j], ok[j]+fail[j]))
		}
		lines = append(lines, l)
	}
	return figure.TimeSeries("Failed tasks per 10 model seconds, per scheduler", "model seconds since the run started",
		"tasks that failed (%)", ws, ms, lines...)
}

// Curves are what a sweep plots (over --dead, say): each scheduler's
// success against its exact theory.
func (s *eurekaDrill) Curves() []scenarios.Curve {
	var out []scenarios.Curve
	for _, r := range s.Retries {
		key := fmt.Sprint(r)
		out = append(out, scenarios.Curve{Name: "success with R = " + key, Metric: "success@" + key, Theory: "exact@" + key,
			Check: "success with R = " + key + " (exact theory ± 4σ)"})
	}
	return out
}
