package nacosincident

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/nacos"
)

// timelineRow is one line of the run's timeline.
type timelineRow struct {
	at          time.Duration
	source, say string
}

// groupWithin is how close log lines of one kind must be to share a row.
const groupWithin = 100 * time.Millisecond

// timelineTable lists, from time zero, the fault, every change of the
// server's list, the server's own log events (grouped) and every list
// change a caller's client reported.
func (s *nacosIncident) timelineTable(m incidentMeasure) report.Table {
	rows := []timelineRow{{m.start.At, "fault", m.start.Label}, {m.end.At, "fault", m.end.Label}}
	rows = append(rows, serverListRows(m.data.Server)...)
	rows = append(rows, serverLogRows(m.data.ServerLog, m.timeline)...)
	for _, n := range m.names {
		for _, l := range m.clients[n].lists {
			if l.At >= 0 {
				rows = append(rows, timelineRow{l.At, n, fmt.Sprintf("its client's list: %d instances", l.Count)})
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at < rows[j].at })
	t := report.Table{Title: fmt.Sprintf("What the server and the clients did (server: its admin API read every %s and its own logs; clients: their listeners)", m.data.SamplePeriod),
		Header: []string{"t (s)", "who", "what"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%.3f", r.at.Seconds()), r.source, r.say})
	}
	return t
}

// serverListRows are the changes of the server's list from time zero.
func serverListRows(samples []listSample) []timelineRow {
	var rows []timelineRow
	prev := -2
	for _, smp := range samples {
		if smp.At < 0 || smp.Count == prev {
			continue
		}
		say := fmt.Sprintf("lists %d instances (%d healthy)", smp.Count, smp.Healthy)
		if smp.Count < 0 {
			say = "no answer: " + report.ShortErr(smp.Err)
		}
		rows, prev = append(rows, timelineRow{smp.At, "server", say}), smp.Count
	}
	return rows
}

// serverLogRows groups the server's log events from time zero to end:
// events of one kind (and push size) within groupWithin of a group's
// first share its row, even when other kinds come between them.
func serverLogRows(evs []serverEvent, end time.Duration) []timelineRow {
	type group struct {
		first serverEvent
		n     int
	}
	var groups []group
	for _, e := range evs {
		if e.At < 0 || e.At > end {
			continue
		}
		i := slices.IndexFunc(groups, func(g group) bool {
			return g.first.Kind == e.Kind && g.first.Size == e.Size && e.At-g.first.At <= groupWithin
		})
		if i < 0 {
			groups = append(groups, group{first: e})
			i = len(groups) - 1
		}
		groups[i].n++
	}
	rows := make([]timelineRow, len(groups))
	for i, g := range groups {
		rows[i] = timelineRow{g.first.At, "server log", logSay(g.first, g.n)}
	}
	return rows
}

// logSay describes n server log events like e.
func logSay(e serverEvent, n int) string {
	switch e.Kind {
	case nacos.PushOK:
		return fmt.Sprintf("pushed %d instances (%s)", e.Size, plural(n, "push", "pushes"))
	case nacos.PushFailed:
		return fmt.Sprintf("%s failed", plural(n, "push", "pushes"))
	case nacos.Disconnect:
		return plural(n, "connection", "connections") + " ended: instances and subscriptions removed"
	case nacos.EjectProbe:
		return plural(n, "connection", "connections") + " silent 20 s: probed"
	case nacos.Eject:
		return plural(n, "connection", "connections") + " ejected (the probe went unanswered)"
	}
	return fmt.Sprintf("%s (%d)", e.Kind, n)
}

// plural is "n one" or "n many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (s *nacosIncident) concludeBlackhole(res *report.Result, m incidentMeasure) {
	res.Conclude(fmt.Sprintf("Every client link (%d instances, %d callers) lost the real Nacos server for %.2f s (%.2f–%.2f s); every instance stayed alive.",
		m.data.Instances, len(m.names), m.loss.Seconds(), m.start.At.Seconds(), m.end.At.Seconds()))
	switch {
	case m.ejections == 0:
		res.Conclude(fmt.Sprintf("The server ejected no connection and kept every instance: with Nacos 3 over gRPC an instance lives as long as its connection, "+
			"and a silent one is ejected only after %s idle + a %s probe. No caller failed during the loss (%s) or after it (%s).",
			keepAliveTime, ejectProbe, failures(m.names, m.during), failures(m.names, m.after)))
	case m.emptyAt < 0:
		res.Conclude(fmt.Sprintf("The server ejected %s (the first %.2f s into the loss) and listed at least %d of %d instances throughout: callers' connections "+
			"(their subscriptions) go first, the instances' later. Failures during the loss: %s; after it: %s.",
			plural(m.ejections, "connection", "connections"), m.firstEject.Seconds(), m.fewest, m.data.Instances, failures(m.names, m.during), failures(m.names, m.after)))
	default:
		res.Conclude(fmt.Sprintf("The server ejected %d connections (the first %.2f s into the loss) and listed no instance from %.2f s into it: the emptying the article describes.",
			m.ejections, m.firstEject.Seconds(), m.emptyAt.Seconds()))
	}
	if m.ejections > 0 {
		res.Conclude(fmt.Sprintf("Nothing reached the blackholed clients: failures during the loss %s. After the heal (every instance listed again %.2f s later): %s; clients that saw an empty list: %s.",
			failures(m.names, m.during), secondsOrNaN(m.relist), failures(m.names, m.after), orNone(m.emptied)))
	}
	if m.loss < noRemovalBelow() {
		res.Conclude("The article's clients dropped their lists after 18 s; Nacos 3.1's server removes an instance only after its connection was silent 20 s and missed a 5 s probe (variant loss40s shows the removal).")
	}
}

// failures lists each caller's failed calls of counts, in the order of
// names, "none" when all are 0.
func failures(names []string, counts map[string][2]int) string {
	var parts []string
	for _, n := range names {
		if c := counts[n]; c[1] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d of %d", n, c[1], c[0]))
		}
	}
	return orNone(parts)
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func (s *nacosIncident) concludeEmpty(res *report.Result, h *history.History, m incidentMeasure) {
	res.Conclude(fmt.Sprintf("Every instance (%d) was deregistered from the real Nacos server for %.2f s (%.2f–%.2f s) while its endpoint stayed up; the server listed none from %.2f s into it.",
		m.data.Instances, m.loss.Seconds(), m.start.At.Seconds(), m.end.At.Seconds(), secondsOrNaN(m.emptyAt)))
	refilled := map[string][2]int{}
	for _, n := range m.names {
		refilled[n] = callsOf(h.Ops, n, m.end.At+refilledBy(), h.Timeline)
	}
	res.Conclude("Failures while the registry was empty: " + failures(m.names, m.during) + "; once the re-registered instances were pushed (heal + " +
		refilledBy().String() + "): " + failures(m.names, refilled) + ".")
	if first, ok := firstFailed(h.Ops, "spring", m.start.At, history.ErrNoInstance); ok {
		res.Conclude(fmt.Sprintf("Spring served from LoadBalancer's cache, then failed with %q from %.2f s after the registry emptied (the article's 503), until the re-registration.",
			noInstances, (first.Scheduled - m.start.At).Seconds()))
	}
	res.Conclude(fmt.Sprintf("The fixes: spring-fallback failed %d, plain-protect %d, go-sdk %d.",
		m.during["spring-fallback"][1], m.during["plain-protect"][1], m.during["go-sdk"][1]))
}

// emptyMetrics are the empty registry's own metrics.
func (s *nacosIncident) emptyMetrics(mt report.Metrics, h *history.History, m incidentMeasure) {
	mt["spring.first_no_instances_s"] = secondsOrNaN(-1)
	if first, ok := firstFailed(h.Ops, "spring", m.start.At, history.ErrNoInstance); ok {
		mt["spring.first_no_instances_s"] = (first.Scheduled - m.start.At).Seconds()
	}
	for _, n := range m.names {
		mt[n+".fail_after_refill"] = float64(callsOf(h.Ops, n, m.end.At+refilledBy(), h.Timeline)[1])
	}
}
