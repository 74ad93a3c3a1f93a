package nacosincident

import (
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/nacos"
)

// incidentMeasure is what a nacos-incident run measured.
type incidentMeasure struct {
	// names are the run's callers in table order; callers describes them
	// (their client, language, protections) and clients holds what their
	// clients reported besides their calls.
	names      []string
	callers    map[string]history.CallerInfo
	clients    map[string]clientReport
	data       incidentData
	series     map[string]report.Series
	start, end history.Event
	// loss is the fault's measured length (heal − inject); timeline the run's.
	loss, timeline time.Duration
	// during and after count each caller's calls due during the fault and
	// after its heal: [calls, failed].
	during, after map[string][2]int
	// ejections counts the server's ejections of silent connections during
	// the loss; firstEject is the first, from the fault's start (−1: none).
	ejections  int
	firstEject time.Duration
	// removed: the server listed fewer than every instance during the
	// fault; emptyAt is its first reading of none, from the fault's start
	// (−1: none); relist its first reading of every instance at or after
	// the heal, from the heal (−1: never).
	removed         bool
	emptyAt, relist time.Duration
	// fewest is the fewest instances the server listed during the fault.
	fewest int
	// emptied names the callers whose client's listener saw an empty list
	// after the fault began.
	emptied []string
	// restart holds each restarted caller's restart (--restart-at); its
	// during counts only the loss before its kill.
	restart map[string]restartMeasure
}

// measure fills the measurement; why is non-empty when the run cannot judge.
func (s *nacosIncident) measure(h *history.History) (m incidentMeasure, why string) {
	m.names = s.names()
	m.series = report.PerSecond(h.Ops, m.names, report.Seconds(h.Timeline))
	if err := h.DataInto(&m.data); err != nil {
		return m, "the run recorded no Nacos data: " + err.Error()
	}
	m.callers, m.clients = h.Callers, clientReports(h.Ops, m.names)
	kind := faultKind(s.Fault)
	var ok bool
	if m.start, ok = h.Events.First(kind, history.Inject); !ok {
		return m, fmt.Sprintf("no %s fault was recorded", kind)
	}
	if m.end, ok = h.Events.First(kind, history.Heal); !ok {
		return m, fmt.Sprintf("the %s fault was not healed", kind)
	}
	m.loss, m.timeline = m.end.At-m.start.At, h.Timeline
	m.during, m.after = map[string][2]int{}, map[string][2]int{}
	for _, n := range m.names {
		m.during[n] = callsOf(h.Ops, n, m.start.At, m.end.At)
		m.after[n] = callsOf(h.Ops, n, m.end.At, h.Timeline)
	}
	m.measureServer()
	if s.restarts() {
		if why := s.measureRestarts(h, &m); why != "" {
			return m, why
		}
		for n, r := range m.restart {
			m.during[n] = r.before
		}
	}
	return m, ""
}

// faultKind is the event kind of a --fault.
func faultKind(fault string) history.EventKind {
	if fault == faultEmpty {
		return history.DeregisterInstances
	}
	return history.BlackholeLinks
}

// callsOf is report.Count as [calls, failed].
func callsOf(ops []history.Op, caller string, from, to time.Duration) [2]int {
	n, f := report.Count(ops, caller, from, to)
	return [2]int{n, f}
}

// measureServer reads the server's ejections and list, and the callers' lists.
func (m *incidentMeasure) measureServer() {
	m.firstEject, m.emptyAt, m.relist, m.fewest = -1, -1, -1, m.data.Instances
	for _, e := range m.data.ServerLog {
		if e.Kind == nacos.Eject && e.At >= m.start.At && e.At <= m.end.At+ruleSlack {
			if m.ejections == 0 {
				m.firstEject = e.At - m.start.At
			}
			m.ejections++
		}
	}
	for _, smp := range m.data.Server {
		in := smp.At >= m.start.At && smp.At <= m.end.At
		switch {
		case in && smp.Count >= 0 && smp.Count < m.data.Instances:
			m.removed, m.fewest = true, min(m.fewest, smp.Count)
			if smp.Count == 0 && m.emptyAt < 0 {
				m.emptyAt = smp.At - m.start.At
			}
		case smp.At >= m.end.At && m.relist < 0 && smp.Count == m.data.Instances:
			m.relist = smp.At - m.end.At
		}
	}
	for _, n := range m.names {
		for _, l := range m.clients[n].lists {
			if l.At >= m.start.At && l.Count == 0 {
				m.emptied = append(m.emptied, n)
				break
			}
		}
	}
}

// Judge turns a nacos-incident run into the result (pure).
func (s *nacosIncident) Judge(h *history.History) *report.Result {
	h = upgradeHistory(h)
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, why := s.measure(h)
	res.Series = m.series
	res.AddTable(report.SecondsTable(s.tableTitle(), s.rows(), m.series, h.Events))
	if why != "" {
		res.AddCheck(s.headline().Invalid(why))
		return res
	}
	res.Gates = append(res.Gates, s.gates(h, m)...)
	s.metrics(res.Metrics, m)
	res.AddTable(s.timelineTable(m))
	if s.Fault == faultEmpty {
		s.emptyMetrics(res.Metrics, h, m)
		res.AddCheck(s.emptyChecks(h, m)...)
		s.concludeEmpty(res, h, m)
		return res
	}
	res.AddCheck(s.blackholeChecks(m)...)
	s.concludeBlackhole(res, m)
	if s.restarts() {
		res.Gates = append(res.Gates, s.restartGate(m))
		s.restartMetrics(res.Metrics, m)
		res.AddCheck(s.restartChecks(m)...)
		s.concludeRestart(res, m)
	}
	return res
}

func (s *nacosIncident) tableTitle() string {
	if s.Fault == faultEmpty {
		return "Per-second ok/fail while the real Nacos server lists no instance (every instance deregistered, all alive)"
	}
	return "Per-second ok/fail while every client loses the real Nacos server (the Nacos incident: the clients failed everything)"
}

// headline is the check a run that cannot judge is reported on.
func (s *nacosIncident) headline() report.Expect {
	if s.Fault == faultEmpty {
		return s.springFails(0)
	}
	return s.serverEmptied(0)
}

// gates are the scenario's own validity gates: every caller ran to the
// end at its rate, every caller served in the second before the fault,
// and the fault lasted --loss. (The generic ones — the server listed every
// instance before the fault, the sends kept their schedule — come from the
// history's gate and paced ops.)
func (s *nacosIncident) gates(h *history.History, m incidentMeasure) []report.Gate {
	want := int(math.Round(s.Rate * h.Timeline.Seconds()))
	var short, early, unsteady []string
	for _, n := range m.names {
		c := m.clients[n]
		if !c.started {
			early = append(early, n+": not started")
		}
		if c.err != "" {
			early = append(early, n+": "+report.ShortErr(c.err))
		}
		if r, ok := m.restart[n]; ok {
			short = append(short, s.restartedShort(h, n, r)...)
		} else if got := callsOf(h.Ops, n, 0, h.Timeline)[0]; got < want-1 {
			short = append(short, fmt.Sprintf("%s %d", n, got))
		}
		if b := callsOf(h.Ops, n, m.start.At-time.Second, m.start.At); b[0] == 0 || b[1] > 0 {
			unsteady = append(unsteady, fmt.Sprintf("%s %d of %d failed", n, b[1], b[0]))
		}
	}
	return []report.Gate{
		gate("every caller ran to the end", early, "all", "no caller ended early"),
		gate("every caller made its calls at --rate", short, fmt.Sprintf("each %d", want), s.rateLimit(want)),
		gate("every caller served in the second before the fault", unsteady, "none failed", "no failed call"),
		{Name: "the fault lasted --loss", OK: (m.loss - s.Loss).Abs() <= ruleSlack,
			Measured: fmt.Sprintf("%.3f s", m.loss.Seconds()), Limit: fmt.Sprintf("%s ± %s", s.Loss, ruleSlack)},
	}
}

// rateLimit says what the rate gate wants.
func (s *nacosIncident) rateLimit(want int) string {
	limit := fmt.Sprintf("%d calls each (rate × timeline, −1)", want-1)
	if s.restarts() {
		limit += "; a restarted caller rate × its time before the kill (−2) and after its first call again (−1)"
	}
	return limit
}

// restartedShort checks a restarted caller's calls at --rate: before its
// kill (less the calls in flight, which died with it) and from its second
// process's first call to the end.
func (s *nacosIncident) restartedShort(h *history.History, n string, r restartMeasure) []string {
	var short []string
	if want, got := int(s.Rate*r.killed.Seconds()), callsOf(h.Ops, n, 0, r.killed)[0]; got < want-2 {
		short = append(short, fmt.Sprintf("%s %d of %d before its kill", n, got, want))
	}
	if r.firstCall < 0 {
		return append(short, n+" never called again")
	}
	if want, got := int(s.Rate*(h.Timeline-r.firstCall).Seconds()), callsOf(h.Ops, n, r.firstCall, h.Timeline)[0]; got < want-1 {
		short = append(short, fmt.Sprintf("%s %d of %d after its restart", n, got, want))
	}
	return short
}

// gate is a gate that holds when bad is empty.
func gate(name string, bad []string, good, limit string) report.Gate {
	g := report.Gate{Name: name, OK: len(bad) == 0, Measured: good, Limit: limit}
	if len(bad) > 0 {
		g.Measured = strings.Join(bad, "; ")
	}
	return g
}

func (s *nacosIncident) metrics(mt report.Metrics, m incidentMeasure) {
	mt["loss_s"], mt["fault_start_s"], mt["fault_end_s"] = m.loss.Seconds(), m.start.At.Seconds(), m.end.At.Seconds()
	mt["server_start_s"] = m.data.ServerStart.Seconds()
	mt["server.ejections"], mt["server.ejected"] = float64(m.ejections), report.B2F(m.ejections > 0)
	mt["server.first_eject_s"], mt["server.empty_at_s"] = secondsOrNaN(m.firstEject), secondsOrNaN(m.emptyAt)
	mt["server.removed"], mt["server.emptied"] = report.B2F(m.removed), report.B2F(m.emptyAt >= 0)
	mt["server.relisted_after_heal_s"] = secondsOrNaN(m.relist)
	mt["server.fewest_listed"] = float64(m.fewest)
	mt["clients_emptied"] = float64(len(m.emptied))
	for _, n := range m.names {
		mt.AddSeriesMetrics(n, m.series[n])
		mt[n+".fail_during"], mt[n+".fail_after"] = float64(m.during[n][1]), float64(m.after[n][1])
	}
}

// secondsOrNaN is d in seconds, NaN when d < 0 (not measured).
func secondsOrNaN(d time.Duration) float64 {
	if d < 0 {
		return math.NaN()
	}
	return d.Seconds()
}
