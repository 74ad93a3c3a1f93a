package nacosincident

import (
	"fmt"
	"math"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/scenarios"
)

// Plots draws each caller's ok and failed calls per second with the fault
// shaded (callers that counted the same every second share a panel), and
// below them what the real server listed over the run, with its ejections
// marked, beside the list of every client whose list changed after time zero.
func (s *nacosIncident) Plots(h *history.History) ([]figure.Plot, error) {
	h = upgradeHistory(h)
	m, why := s.measure(h)
	if why != "" {
		return nil, fmt.Errorf("nacos-incident: %s", why)
	}
	plots, err := scenarios.PerSecondPlotAlike("nacos-incident", h, m.series, s.rows()...)
	if err != nil {
		return nil, err
	}
	p, rows, err := s.listPanel(h, m)
	if err != nil {
		return nil, err
	}
	f := &plots[0]
	f.Panels = append(f.Panels, p)
	figure.ShareX(f.Panels...)
	f.RowHeights = nil
	for range f.Panels[:len(f.Panels)-1] {
		f.RowHeights = append(f.RowHeights, vg.Inch*2.3)
	}
	f.RowHeights = append(f.RowHeights, figure.RowsHeight(rows))
	f.Height = 0
	for _, h := range f.RowHeights {
		f.Height += h
	}
	return plots, nil
}

// listPanel is the server's listed count (a step every 20 ms reading) and
// each changing client's list (a step at each change its listener saw),
// each in a row of its own from 0 to the instances registered: they
// mostly agree, and on one axis they lay on top of each other. It returns
// the panel and its number of rows.
func (s *nacosIncident) listPanel(h *history.History, m incidentMeasure) (*plot.Plot, int, error) {
	end := h.Timeline.Seconds()
	ws, ms := figure.RunWindows(h.Events, end)
	ms = append(ms, ejectMarks(m.data.ServerLog, h.Timeline)...)
	rows := []figure.Row{{Label: "server", Line: serverLine(m.data.Server, m.data.SamplePeriod, end)}}
	for i, n := range m.names {
		if l, ok := clientLine(n, m.clients[n].lists, end); ok {
			l.Color, l.Width = figure.Color(i), 2
			rows = append(rows, figure.Row{Label: n, Line: l})
		}
	}
	title := s.listTitle(m.data.Instances, len(rows) > 1)
	p, err := figure.Rows(title, "second of the run", ws, ms, float64(max(m.data.Instances, 1)), rows...)
	if err != nil {
		return nil, 0, fmt.Errorf("nacos-incident: %w", err)
	}
	p.X.Min, p.X.Max = 0, end
	return p, len(rows), nil
}

// listTitle names the list panel and what its rows span.
func (s *nacosIncident) listTitle(instances int, clients bool) string {
	what := "every client link blackholed"
	if s.Fault == faultEmpty {
		what = "every instance deregistered"
	}
	if !clients {
		return fmt.Sprintf("What the Nacos server listed (%s; 0–%d instances); no client's own list changed", what, instances)
	}
	return fmt.Sprintf("What the Nacos server and each client that changed listed (%s; a row each, 0–%d instances)", what, instances)
}

// ejectMarks marks the server's ejections of silent connections (grouped
// as the timeline table groups them).
func ejectMarks(evs []serverEvent, end time.Duration) []figure.Mark {
	var ms []figure.Mark
	for _, r := range serverLogRows(evs, end) {
		if strings.Contains(r.say, "ejected") {
			ms = append(ms, figure.Mark{At: r.at.Seconds(), Kind: history.Probe, Label: "server: " + r.say})
		}
	}
	return ms
}

// serverLine is the server's readings from time zero (a failed reading is a gap).
func serverLine(samples []listSample, every time.Duration, end float64) figure.Line {
	l := figure.Line{Name: fmt.Sprintf("server (admin API, read every %s)", every), Color: figure.Black, Step: true, Width: 2}
	for _, smp := range samples {
		if smp.At < 0 || smp.At.Seconds() > end {
			continue
		}
		y := float64(smp.Count)
		if smp.Count < 0 {
			y = math.NaN()
		}
		l.X, l.Y = append(l.X, smp.At.Seconds()), append(l.Y, y)
	}
	return l
}

// clientLine is a client's list from time zero to end, false when it never
// changed after time zero (it held the list it had).
func clientLine(name string, lists []listChange, end float64) (figure.Line, bool) {
	l := figure.Line{Name: name + "'s client", Step: true}
	last, changed := math.NaN(), false
	for _, c := range lists {
		if c.At < 0 {
			last = float64(c.Count)
			continue
		}
		if !changed && !math.IsNaN(last) {
			l.X, l.Y = append(l.X, 0), append(l.Y, last)
		}
		changed = true
		l.X, l.Y = append(l.X, c.At.Seconds()), append(l.Y, float64(c.Count))
	}
	if !changed {
		return l, false
	}
	l.X, l.Y = append(l.X, end), append(l.Y, l.Y[len(l.Y)-1])
	return l, true
}

// Curves are what a sweep over --loss plots: whether and when the server
// removed anything, and each caller's failures after the heal.
func (s *nacosIncident) Curves() []scenarios.Curve {
	if s.Fault == faultEmpty {
		return s.emptyCurves()
	}
	cs := []scenarios.Curve{
		{Name: "the server during the loss, fewest instances listed", Metric: "server.fewest_listed", Group: "the server during the loss"},
		{Name: "the server during the loss, connections ejected (instances' and callers')", Metric: "server.ejections", Group: "the server during the loss"},
		{Name: "server: ejected a silent connection during the loss (1 = yes)", Metric: "server.ejected", Check: s.serverEjected(0).Name},
		{Name: "server: removed every instance during the loss (1 = yes)", Metric: "server.emptied", Check: s.serverEmptied(0).Name},
		{Name: "server: first ejection, after the loss began", Metric: "server.first_eject_s", Check: "server: first ejection, after the loss began", Unit: "s"},
		{Name: "server: listed no instance, after the loss began", Metric: "server.empty_at_s", Check: "server: listed no instance, after the loss began", Unit: "s"},
	}
	for _, n := range s.names() {
		cs = append(cs, scenarios.Curve{Name: "failed calls after the heal, " + n, Metric: n + ".fail_after", Group: "failed calls after the heal"})
	}
	return cs
}

// emptyCurves are a sweep's curves for the empty registry.
func (s *nacosIncident) emptyCurves() []scenarios.Curve {
	cs := []scenarios.Curve{{Name: `spring: first "No instances available", after the registry emptied`, Metric: "spring.first_no_instances_s",
		Check: `spring: first "No instances available", after the registry emptied`, Unit: "s"}}
	for _, n := range s.names() {
		cs = append(cs, scenarios.Curve{Name: "failed calls while the registry was empty, " + n, Metric: n + ".fail_during", Group: "failed calls while the registry was empty"})
	}
	return cs
}
