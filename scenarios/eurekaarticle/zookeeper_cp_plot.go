package eurekaarticle

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/experiment"
	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
)

// Plots draws one figure: what each member answered, ask by ask, around
// the fault; the survivors' asks again, zoomed to their refusals; and
// every client's failed calls per second, ZooKeeper's and real Eureka's
// (both faults at the same second of their runs).
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
	zoom, zoomLanes, err := s.zoomPanel(h, m, ws, ms)
	if err != nil {
		return nil, err
	}
	p2, err := s.failedPanel(h, m, ws, ms)
	if err != nil {
		return nil, err
	}
	f := figure.Stack("zookeeper-cp", p1, p2)
	f.RowHeights = []vg.Length{figure.LanesHeight(lanes), vg.Inch * 3}
	if zoom != nil {
		f = figure.Stack("zookeeper-cp", p1, zoom, p2)
		f.RowHeights = []vg.Length{figure.LanesHeight(lanes), figure.LanesHeight(zoomLanes), vg.Inch * 3}
	}
	for _, h := range f.RowHeights {
		f.Height += h
	}
	return []figure.Plot{f}, nil
}

// notServingKind shades, in the zoomed panel, the span in which no
// survivor served.
const notServingKind history.EventKind = "not-serving"

// zoomPadBefore and zoomPadAfter are how far the zoomed panel reaches
// before the first refusal and after the last.
const zoomPadBefore, zoomPadAfter = time.Second, 1500 * time.Millisecond

// zoomPanel draws the survivors' asks around their refusals, zoomed in:
// on the run's axis a refusal of 0.6 s (the lesson's headline) is a pixel
// wide. The span in which no survivor served is shaded. It returns nil
// when no survivor refused anything.
func (s *zkCP) zoomPanel(h *history.History, m cpMeasure, ws []figure.Window, ms []figure.Mark) (*plot.Plot, []figure.Lane, error) {
	var survivors, said []string
	span := cpSpan{}
	for _, cm := range m.members {
		r := cm.refused[cpOps[0]] // cpOps names the member's own state (srvr) first
		if cm.victim || !r.span.ok {
			continue
		}
		survivors, said = append(survivors, cm.name), append(said, fmt.Sprintf("%s not serving %s", cm.name, fmtS(r.span.length())))
		span = unionSpan(span, r.span)
	}
	if !span.ok {
		return nil, nil, nil
	}
	from, to := max(m.faultAt+span.from-zoomPadBefore, 0), min(m.faultAt+span.to+zoomPadAfter, h.Timeline)
	lanes := figure.LanesOf(clipOps(h.Ops, from, to), memberRank(survivors))
	if len(lanes) == 0 {
		return nil, nil, nil
	}
	for i := range lanes {
		lanes[i].Name = strings.TrimPrefix(lanes[i].Name, "probe/")
	}
	if m.none.ok {
		ws = append(slices.Clone(ws), figure.Window{From: (m.faultAt + m.none.from).Seconds(), To: (m.faultAt + m.none.to).Seconds(),
			Kind: notServingKind, Label: "no survivor serving (srvr): " + fmtS(m.none.length())})
	}
	title := fmt.Sprintf("Zoomed to %s–%s s: the survivors' asks (%s)", num1(from), num1(to), strings.Join(said, "; "))
	p, err := figure.Lanes(title, lanes, ws, marksWithin(ms, from, to))
	if err != nil {
		return nil, nil, err
	}
	p.X.Min, p.X.Max = from.Seconds(), to.Seconds()
	return p, lanes, nil
}

// unionSpan is the smallest span that holds a and b.
func unionSpan(a, b cpSpan) cpSpan {
	switch {
	case !a.ok:
		return b
	case !b.ok:
		return a
	}
	return cpSpan{from: min(a.from, b.from), to: max(a.to, b.to), ok: true}
}

// clipOps returns the ops that overlap [from, to], each cut to it.
func clipOps(ops []history.Op, from, to time.Duration) []history.Op {
	var out []history.Op
	for _, o := range ops {
		if o.End < from || o.Start > to {
			continue
		}
		o.Start, o.End = max(o.Start, from), min(o.End, to)
		out = append(out, o)
	}
	return out
}

// marksWithin keeps the marks in [from, to].
func marksWithin(ms []figure.Mark, from, to time.Duration) []figure.Mark {
	var out []figure.Mark
	for _, mk := range ms {
		if mk.At >= from.Seconds() && mk.At <= to.Seconds() {
			out = append(out, mk)
		}
	}
	return out
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
