package nacosarticle

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/scenarios"
)

// Plots draws, for each size, the storm after the link heals (x = 0):
// calls the registrants started and calls the registry received per
// 100 ms, registrations in flight, and the calls' latency quantiles on
// both sides — immediate re-registration against jittered back-off.
func (s *reregistrationStorm) Plots(h *history.History) ([]figure.Plot, error) {
	sizes, _, err := s.measure(h)
	if err != nil {
		return nil, fmt.Errorf("reregistration-storm: %w", err)
	}
	var out []figure.Plot
	for _, sz := range sizes {
		f, err := s.stormFigure(sz)
		if err != nil {
			return nil, fmt.Errorf("reregistration-storm at N = %d: %w", sz.n, err)
		}
		if len(sizes) > 1 {
			f.Name = fmt.Sprintf("storm-%d", sz.n)
		}
		out = append(out, f)
	}
	return out, nil
}

// stormFigure is one size's three panels.
func (s *reregistrationStorm) stormFigure(sz stormSize) (figure.Plot, error) {
	n := stormBuckets(sz)
	xs := figure.Index(n, bucketWidth.Seconds())
	heal := []figure.Mark{{At: 0, Kind: history.BlackholeLinks, Label: "links heal: every registrant re-registers"}}
	note := ""
	if sz.why != "" {
		note = " — cannot be judged"
	}
	calls, err := figure.TimeSeries(fmt.Sprintf("N = %d registrants: calls per 100 ms after the registry comes back%s", sz.n, note),
		"seconds after the link heals", "calls per 100 ms", nil, heal,
		figure.Line{Name: "immediate: started by registrants", X: xs, Y: ints(sz.imm.phase.Started, n), Color: figure.Vermilion, Step: true},
		figure.Line{Name: "immediate: received by the registry", X: xs, Y: floats(sz.imm.load.Received, n), Color: figure.Vermilion, Step: true, Dashes: figure.Dotted},
		figure.Line{Name: "jitter: started by registrants", X: xs, Y: ints(sz.jit.phase.Started, n), Color: figure.Blue, Step: true},
		figure.Line{Name: "jitter: received by the registry", X: xs, Y: floats(sz.jit.load.Received, n), Color: figure.Blue, Step: true, Dashes: figure.Dotted})
	if err != nil {
		return figure.Plot{}, err
	}
	flight, err := figure.TimeSeries("Registration calls in flight (most in each 100 ms)", "seconds after the link heals", "calls in flight", nil, heal,
		figure.Line{Name: "immediate", X: xs, Y: ints(sz.imm.phase.InFlight, n), Color: figure.Vermilion, Step: true},
		figure.Line{Name: "jitter", X: xs, Y: ints(sz.jit.phase.InFlight, n), Color: figure.Blue, Step: true})
	if err != nil {
		return figure.Plot{}, err
	}
	lat, err := stormLatency(sz)
	if err != nil {
		return figure.Plot{}, err
	}
	figure.ShareX(calls, flight)
	f := figure.Stack("storm", calls, flight, lat)
	f.Height = vg.Inch * 8.4
	return f, nil
}

// stormLatency is the latency quantiles of both strategies, on both sides;
// the registry's side only where it was measured (the title says when not).
func stormLatency(sz stormSize) (*plot.Plot, error) {
	title, cats := "Latency of the re-registration calls after the heal", []string{"registrants: p50", "registrants: p99"}
	side := func(sd stormSide) []float64 { return []float64{sd.phase.Calls.P50ms, sd.phase.Calls.P99ms} }
	if sz.imm.load.DurationsMissing() != "" && sz.jit.load.DurationsMissing() != "" {
		title += " (the registry's serving time: not measured)"
	} else {
		cats = append(cats, "registry served: p50", "registry served: p99")
		side = func(sd stormSide) []float64 {
			return []float64{sd.phase.Calls.P50ms, sd.phase.Calls.P99ms, sd.load.P50ms, sd.load.P99ms}
		}
	}
	p, err := figure.Bars(title, "milliseconds", cats,
		figure.Bar{Name: "immediate", Values: side(sz.imm), Color: figure.Vermilion},
		figure.Bar{Name: "jitter", Values: side(sz.jit), Color: figure.Blue})
	if err == nil {
		figure.Headroom(p, 0.05)
	}
	return p, err
}

// stormBuckets is how many 100 ms buckets the panels show: up to one
// second after the last bucket where anything happened, at least 2 s.
func stormBuckets(sz stormSize) int {
	last := 0
	for _, sd := range []stormSide{sz.imm, sz.jit} {
		last = max(last, lastNonZero(floatsOf(sd.phase.Started)), lastNonZero(floatsOf(sd.phase.InFlight)), lastNonZero(sd.load.Received))
	}
	return max(last+1+int(math.Round(float64(1e9)/float64(bucketWidth))), 20)
}

func lastNonZero(xs []float64) int {
	for i := len(xs) - 1; i >= 0; i-- {
		if xs[i] != 0 {
			return i
		}
	}
	return 0
}

func floatsOf(xs []int) []float64 { return figure.Floats(xs) }

// ints and floats return the first n values, zero-padded.
func ints(xs []int, n int) []float64 { return floats(figure.Floats(xs), n) }

func floats(xs []float64, n int) []float64 {
	out := make([]float64, n)
	copy(out, xs)
	return out
}

// Curves are what a sweep over --instances (one size per point) plots,
// immediate against jitter in one panel each: the registry's peak per
// 100 ms, the registrants' failed calls, the registry's p99 and how long
// until every registrant was back.
func (s *reregistrationStorm) Curves() []scenarios.Curve {
	n := fmt.Sprint(s.Sizes[0])
	var out []scenarios.Curve
	for _, g := range []struct{ group, metric, unit string }{
		{"registry's peak calls received per 100 ms", "registry.peak_per_100ms", ""},
		{"registrants' failed calls", "errors", ""},
		{"registry served p99", "registry.p99_ms", "ms"},
		{"all registrants back after", "converge_s", "s"},
	} {
		for _, st := range []struct {
			name  string
			color color.Color
		}{{"immediate", figure.Vermilion}, {"jitter", figure.Blue}} { // as in the storm's own figure
			out = append(out, scenarios.Curve{Name: g.group + ", " + st.name, Group: g.group, Metric: st.name + "." + g.metric + "@" + n,
				Unit: g.unit, Color: st.color})
		}
	}
	return out
}
