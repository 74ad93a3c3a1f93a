package scenarios

import (
	"fmt"
	"image/color"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
)

// Plotter is implemented by a Config that draws its run. Plots is pure,
// like Judge: it draws from the recorded history only (re-using the
// judge's measure functions) and the config's parameters.
type Plotter interface {
	// Plots returns the run's figures; an error means the history cannot
	// be drawn (it holds no data of this scenario).
	Plots(h *history.History) ([]figure.Plot, error)
}

// Curve is one headline number a sweep plots against the swept parameter:
// Name is its title (the same at every point of the sweep), Metric the
// metric of this config's result that holds it, Theory the metric holding
// what theory predicts at this point and Check the check whose band is
// drawn ("" when none), Unit its unit, Log a log y axis. Curves with the
// same Group share one panel titled by it (immediate against jitter, say;
// the legend is the Name without its "<Group>, " prefix). Color, when set,
// is the curve's colour (the one the scenario's own figure gives the same
// thing); nil lets the sweep pick by order.
type Curve struct {
	Name, Metric, Theory, Check, Unit string
	Group                             string
	Log                               bool
	Color                             color.Color `json:"-"`
}

// Sweeper is implemented by a Config that names the headline numbers a
// sweep plots (its metric names may depend on the parameters: removals@1.5
// for a ttl of 1.5 s). A Config without it is swept over its checks'
// measurements.
type Sweeper interface {
	Curves() []Curve
}

// AttachPlots renders the plots of cfg (when it is a Plotter) from h and
// attaches each to res as <name>.svg and <name>.png.
func AttachPlots(res *report.Result, cfg Config, h *history.History) error {
	p, ok := cfg.(Plotter)
	if !ok || h == nil {
		return nil
	}
	plots, err := p.Plots(h)
	if err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	return AttachFigures(res, plots)
}

// AttachFigures renders each figure as SVG and PNG and attaches both to
// res; a figure without a panel (a run with no caller to draw) is skipped.
func AttachFigures(res *report.Result, plots []figure.Plot) error {
	for _, f := range plots {
		if len(f.Panels) == 0 {
			continue
		}
		svg, err := figure.SVG(f)
		if err != nil {
			return fmt.Errorf("plotting %s: %w", f.Name, err)
		}
		png, err := figure.PNG(f)
		if err != nil {
			return fmt.Errorf("plotting %s: %w", f.Name, err)
		}
		res.Attach(f.Name+".svg", svg)
		res.Attach(f.Name+".png", png)
	}
	return nil
}

// OperationsPlot draws the ops of h whose callers start with one of
// prefixes (probes, key-value traffic) as lanes of bars coloured by
// outcome over the run's fault windows: the figure "operations" of the
// scenarios that judge single operations rather than rates.
func OperationsPlot(scenario, title string, h *history.History, prefixes ...string) ([]figure.Plot, error) {
	ws, ms := figure.RunWindows(h.Events, h.Timeline.Seconds())
	lanes := figure.LanesOf(h.Ops, prefixes, nil)
	if len(lanes) == 0 {
		return nil, fmt.Errorf("%s: no probe or key-value operation recorded", scenario)
	}
	p, err := figure.Lanes(title, lanes, ws, ms)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenario, err)
	}
	f := figure.One("operations", p)
	f.Height = figure.LanesHeight(len(lanes))
	return []figure.Plot{f}, nil
}

// PerSecondPlot is the per-second figure of a traffic scenario: each row's
// ok and failed requests per second from series, with the run's fault
// windows shaded and its marks drawn; errors name the scenario.
func PerSecondPlot(scenario string, h *history.History, series map[string]report.Series, rows ...report.Row) ([]figure.Plot, error) {
	ws, ms := figure.RunWindows(h.Events, float64(report.Seconds(h.Timeline)))
	f, err := figure.PerSecond("per-second", figure.Callers(series, rows...), ws, ms)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenario, err)
	}
	return []figure.Plot{f}, nil
}
