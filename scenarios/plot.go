package scenarios

import (
	"fmt"
	"image/color"
	"slices"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/linearize"
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

// OperationsPlot draws the probes and the key-value ops of h (by their
// kinds) as lanes of bars coloured by outcome over the run's fault
// windows: the figure "operations" of the scenarios that judge single
// operations rather than rates. The probes come first, in the order they
// started, then each member's puts, linearizable and serializable gets
// (the reads after healing last). The ops stale selects (nil: none) are
// drawn as stale reads, in their own colour and legend entry.
func OperationsPlot(scenario, title string, h *history.History, stale func(history.Op) bool) ([]figure.Plot, error) {
	ws, ms := figure.RunWindows(h.Events, h.Timeline.Seconds())
	lanes := figure.LanesOf(h.Ops, operationRank(h.Ops))
	if len(lanes) == 0 {
		return nil, fmt.Errorf("%s: no probe or key-value operation recorded", scenario)
	}
	var hs []figure.Highlight
	if stale != nil {
		hs = append(hs, figure.Highlight{Name: "stale read", Color: figure.Stale, Is: stale})
	}
	p, err := figure.Lanes(title, lanes, ws, ms, hs...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenario, err)
	}
	f := figure.One("operations", p)
	f.Height = figure.LanesHeight(lanes)
	return []figure.Plot{f}, nil
}

// operationRank ranks the lanes of an operations figure: probes first
// (kind probe, or none in a history saved before probes had one), then
// the key-value ops by member (the reads after healing last) and kind
// (put, get, ser-get); every other op (gates, samples) is left out.
func operationRank(ops []history.Op) func(history.Op) (int, bool) {
	var members []string
	for _, op := range ops {
		if isKV(op.Kind) && op.Via != history.ViaEvery && !slices.Contains(members, op.Via) {
			members = append(members, op.Via)
		}
	}
	slices.Sort(members)
	members = append(members, history.ViaEvery)
	return func(op history.Op) (int, bool) {
		switch {
		case op.Kind == history.OpProbe || op.Kind == "":
			return 0, true
		case isKV(op.Kind):
			return 1 + len(linearize.Kinds)*slices.Index(members, op.Via) + slices.Index(linearize.Kinds, op.Kind), true
		}
		return 0, false
	}
}

// isKV reports whether k is a key-value op's kind.
func isKV(k history.OpKind) bool { return slices.Contains(linearize.Kinds, k) }

// StaleReads returns what the operations figure draws as stale reads: the
// serializable gets of the cut-off members that the judging of h's
// key-value traffic flags (linearize.Judged.StaleReads: porcupine's
// witnesses and the reads real time proves stale), and the probes the
// scenario's judge calls stale (probes; nil when none).
func StaleReads(h *history.History, cutoff []string, probes func(history.Op) bool) func(history.Op) bool {
	var stale []linearize.KV
	if j, ok := linearize.JudgeOps(h.Ops, cutoff, linearize.DefaultTimeout); ok && len(cutoff) > 0 {
		stale = j.StaleReads()
	}
	return func(op history.Op) bool {
		if probes != nil && probes(op) {
			return true
		}
		return slices.ContainsFunc(stale, func(kv linearize.KV) bool { return kv.Of(op) })
	}
}

// PerSecondPlot is the per-second figure of a traffic scenario: each row's
// ok and failed requests per second from series, with the run's fault
// windows shaded and its marks drawn; errors name the scenario.
func PerSecondPlot(scenario string, h *history.History, series map[string]report.Series, rows ...report.Row) ([]figure.Plot, error) {
	return perSecondPlot(scenario, h, figure.Callers(series, rows...))
}

// PerSecondPlotAlike is PerSecondPlot with the callers that counted the
// same every second drawn once, in one panel that names them
// (figure.SameEverySecond): the figure of a scenario where most policies
// never fail and the point is the one that does.
func PerSecondPlotAlike(scenario string, h *history.History, series map[string]report.Series, rows ...report.Row) ([]figure.Plot, error) {
	return perSecondPlot(scenario, h, figure.SameEverySecond(figure.Callers(series, rows...)))
}

func perSecondPlot(scenario string, h *history.History, callers []figure.Caller) ([]figure.Plot, error) {
	ws, ms := figure.RunWindows(h.Events, float64(report.Seconds(h.Timeline)))
	f, err := figure.PerSecond("per-second", callers, ws, ms)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenario, err)
	}
	return []figure.Plot{f}, nil
}
