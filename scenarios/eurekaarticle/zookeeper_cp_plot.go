package eurekaarticle

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/experiment"
	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
)

// Plots draws one figure: what each member answered, ask by ask, around
// the fault; and every client's failed calls per second, ZooKeeper's and
// real Eureka's (both faults at the same second of their runs).
func (s *zkCP) Plots(h *history.History) ([]figure.Plot, error) {
	m, ok, err := s.measure(h)
	switch {
	case err != nil:
		return nil, fmt.Errorf("zookeeper-cp: %w", err)
	case !ok:
		return nil, fmt.Errorf("zookeeper-cp: no fault was recorded")
	}
	ws, ms := figure.RunWindows(h.Events, h.Timeline.Seconds())
	lanes := figure.LanesOf(h.Ops, memberRank(m.data.Members))
	if len(lanes) == 0 {
		return nil, fmt.Errorf("zookeeper-cp: no member was asked")
	}
	for i := range lanes {
		lanes[i].Name = strings.TrimPrefix(lanes[i].Name, "probe/")
	}
	p1, err := figure.Lanes("What each ZooKeeper member answered, asked alone (srvr, read, write, registration)", lanes, ws, ms)
	if err != nil {
		return nil, err
	}
	p2, err := s.failedPanel(h, m, ws, ms)
	if err != nil {
		return nil, err
	}
	f := figure.Stack("zookeeper-cp", p1, p2)
	f.Height = figure.LanesHeight(lanes) + vg.Inch*3.2
	return []figure.Plot{f}, nil
}

// memberRank keeps the member watch's asks, by member then operation.
func memberRank(members []string) func(history.Op) (int, bool) {
	return func(op history.Op) (int, bool) {
		i := slices.Index(members, op.Via)
		j := slices.Index(cpOps, experiment.ProbeOp(op.Target))
		if op.Kind != history.OpProbe || i < 0 || j < 0 {
			return 0, false
		}
		return i*len(cpOps) + j, true
	}
}

// failedPanel is every client's failed calls per second.
func (s *zkCP) failedPanel(h *history.History, m cpMeasure, ws []figure.Window, ms []figure.Mark) (*plot.Plot, error) {
	secs := int(math.Ceil(h.Timeline.Seconds()))
	series := report.PerSecond(h.Ops, cpCallers, secs)
	var lines []figure.Line
	for i, name := range cpCallers {
		w := math.Max(4-0.8*float64(i), 1.2) // each narrower than the last: where they coincide, all show
		lines = append(lines, figure.Line{Name: name, X: figure.Index(secs, 1), Y: figure.Floats(series[name].Fail),
			Color: figure.Color(i), Step: true, Width: w})
	}
	if e := m.eureka; e != nil {
		n := int(math.Ceil(e.h.Timeline.Seconds()))
		es := report.PerSecond(e.h.Ops, []string{e.sched}, n)[e.sched]
		lines = append(lines, figure.Line{Name: "Eureka DiscoveryClient",
			X: figure.Index(n, 1), Y: figure.Floats(es.Fail), Color: figure.Color(len(cpCallers)), Step: true, Width: 1, Dashes: figure.Dotted})
	}
	title := fmt.Sprintf("Failed calls per second of each client (%g calls/s each; Eureka's run killed its server at the same second)", s.Rate)
	return figure.TimeSeries(title, "second of the run (scheduled send time)", "failed calls per second", ws, ms, lines...)
}
