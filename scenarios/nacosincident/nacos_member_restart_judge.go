package nacosincident

import (
	"fmt"
	"math"
	"slices"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/nacos"
)

// The cluster's rules the judge's bands come from (alibaba/nacos at 486e198; docs in
// memberRestartHelp).
const (
	// clientExpired: a member drops a client synced from another member once it was not
	// verified for this long (ClientConstants.DEFAULT_CLIENT_EXPIRED_TIME, 3 min;
	// ConnectionBasedClient.isExpire).
	clientExpired = 3 * time.Minute
	// verifyEvery: the member holding a client's connection verifies it to the others this
	// often, renewing it there (DistroConstants.DEFAULT_DATA_VERIFY_INTERVAL_MILLISECONDS).
	verifyEvery = 5 * time.Second
	// cleanEvery: the expired-client cleaner's period (ConnectionBasedClientManager,
	// Constants.DEFAULT_HEART_BEAT_INTERVAL).
	cleanEvery = 5 * time.Second
)

// memberRestartMeasure is what a nacos-member-restart run measured.
type memberRestartMeasure struct {
	names   []string
	callers map[string]history.CallerInfo
	clients map[string]clientReport
	rec     nacos.Record
	series  map[string]report.Series
	// kill and relaunch are the fault's inject and heal events; ready when the member's new
	// JVM was ready (−1: never).
	kill, relaunch history.Event
	ready          time.Duration
	// after counts each caller's calls due from the kill to the end: [calls, failed, failed
	// for want of an instance or of the registry (ErrNoInstance, ErrRegistry)].
	after map[string][3]int
	// fewest is, per caller, the fewest instances its client's listener held after the kill
	// (the count before it when the listener reported nothing then).
	fewest map[string]int
	// shrunk counts the pushes of fewer than every instance, by any member, after the kill;
	// shrunkBy names the members.
	shrunk   int
	shrunkBy []string
	// owned is how many instances' connections the killed member held; survivors' peak
	// publishers after the kill and when they were back to Instances (from the kill; −1 never).
	owned        int
	peakClients  int
	expiredAfter time.Duration
}

// measure fills the measurement; why is non-empty when the run cannot judge.
func (s *memberRestart) measure(h *history.History) (m memberRestartMeasure, why string) {
	m.names = callerNamesOf(false)
	m.series = report.PerSecond(h.Ops, m.names, report.Seconds(h.Timeline))
	if err := h.DataInto(&m.rec); err != nil {
		return m, "the run recorded no Nacos data: " + err.Error()
	}
	m.callers, m.clients = h.Callers, clientReports(h.Ops, m.names)
	var ok bool
	if m.kill, ok = h.Events.First(history.KillMembers, history.Inject); !ok {
		return m, "no member was killed"
	}
	if m.relaunch, ok = h.Events.First(history.KillMembers, history.Heal); !ok {
		return m, "the killed member was not started again"
	}
	if m.relaunch.Err != "" {
		return m, "the killed member did not serve again: " + m.relaunch.Err
	}
	if len(m.rec.Members) == 0 {
		return m, "the run recorded no cluster members"
	}
	m.ready = -1
	for _, r := range m.rec.Members {
		if r.Name == s.Member && len(r.Restarts) > 0 {
			m.ready = r.Restarts[0].Ready
		}
	}
	m.after, m.fewest = map[string][3]int{}, map[string]int{}
	for _, n := range m.names {
		m.after[n] = listFailures(h.Ops, n, m.kill.At, h.Timeline)
		m.fewest[n] = fewestAfter(m.clients[n].lists, m.kill.At, m.rec.Instances)
	}
	s.measureMembers(&m)
	return m, ""
}

// listFailures counts caller's calls due in [from, to): all, failed, and failed because its
// client had no instance or could not read the registry (a call that reached an instance and
// failed there, or timed out, is the instance's or the machine's, not the list's).
func listFailures(ops []history.Op, caller string, from, to time.Duration) [3]int {
	return callsByClass(ops, caller, from, to, history.ErrNoInstance, history.ErrRegistry)
}

// callsByClass counts caller's calls due in [from, to): all, failed, and failed with one of
// classes.
func callsByClass(ops []history.Op, caller string, from, to time.Duration, classes ...history.ErrClass) [3]int {
	var out [3]int
	for _, op := range history.Filter(ops, caller) {
		if op.Kind != history.OpCall || op.Scheduled < from || op.Scheduled >= to {
			continue
		}
		out[0]++
		if op.Outcome != history.OK {
			out[1]++
			if slices.Contains(classes, op.ErrClass) {
				out[2]++
			}
		}
	}
	return out
}

// fewestAfter is the fewest instances a listener held from at on: the list it held at that
// moment (want when it reported none before) and every change after.
func fewestAfter(lists []listChange, at time.Duration, want int) int {
	held := want
	for _, l := range lists {
		if l.At < at {
			held = l.Count
		}
	}
	fewest := held
	for _, l := range lists {
		if l.At >= at {
			fewest = min(fewest, l.Count)
		}
	}
	return fewest
}

// measureMembers reads the members' pushes and the survivors' publishers after the kill.
func (s *memberRestart) measureMembers(m *memberRestartMeasure) {
	m.expiredAfter = -1
	for _, o := range m.rec.Owners {
		if o.Member == s.Member {
			m.owned++
		}
	}
	for _, r := range m.rec.Members {
		n := 0
		for _, e := range r.Log {
			if e.Kind == nacos.PushOK && e.At >= m.kill.At && e.Size < m.rec.Instances {
				n++
			}
		}
		if n > 0 {
			m.shrunk += n
			m.shrunkBy = append(m.shrunkBy, fmt.Sprintf("%s %d", r.Name, n))
		}
		if r.Name == s.Member {
			continue
		}
		back := time.Duration(-1)
		for _, p := range r.Publishers {
			if p.At < m.kill.At || p.Clients < 0 {
				continue
			}
			m.peakClients = max(m.peakClients, p.Clients)
			if p.Clients > m.rec.Instances {
				back = -1
			} else if back < 0 && m.peakClients > m.rec.Instances {
				back = p.At - m.kill.At
			}
		}
		if back >= 0 {
			m.expiredAfter = max(m.expiredAfter, back)
		}
	}
}

// Judge turns a nacos-member-restart run into the result (pure).
func (s *memberRestart) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, why := s.measure(h)
	res.Series = m.series
	res.AddTable(report.SecondsTable("Per-second ok/fail while one member of three is restarted (every client given every member)",
		s.rows(), m.series, h.Events))
	if why != "" {
		res.AddCheck(s.shrunkCheck(m).Invalid(why))
		return res
	}
	res.Gates = append(res.Gates, s.gates(h, m)...)
	s.metrics(res.Metrics, m)
	res.AddTable(s.membersTable(m))
	res.AddCheck(s.shrunkCheck(m).JudgeText(report.B2F(m.shrunk > 0), fmt.Sprintf("%d pushes (%s)", m.shrunk, orNone(m.shrunkBy))))
	for _, c := range incidentCallersOf(false) {
		res.AddCheck(s.fewestCheck(c, m), s.failCheck(c, m))
	}
	if note := s.expiryUnjudged(m); note != "" {
		res.Conclude(note)
	} else {
		res.AddCheck(s.expiryCheck(m))
	}
	s.conclude(res, m)
	return res
}

// rows are the per-second table's rows.
func (s *memberRestart) rows() []report.Row { return callerRows() }

// callerRows are the rows of the six callers that are never restarted, in table order.
func callerRows() []report.Row {
	var rows []report.Row
	for _, c := range incidentCallersOf(false) {
		rows = append(rows, report.Row{Key: c.name, Label: c.label})
	}
	return rows
}

// memberRule is the rule behind "no list shrinks": the basis of the list checks.
const memberRule = "a member keeps the clients Distro copied to it from the killed member until they go unverified for 3 min " +
	"(ConnectionBasedClient.isExpire: DEFAULT_CLIENT_EXPIRED_TIME; ExpiredClientCleaner every 5 s); a client that lost its member " +
	"reconnects to another of its server list and its redo registers its instance there again; a subscriber is pushed the union of " +
	"every publisher's instance (ServiceStorage.getAllInstancesFromIndex, a HashSet of Instance, equal by toString), so the list " +
	"holds every instance throughout; with nacos.naming.data.warmup the restarted member answers only once Distro has loaded its " +
	"snapshot from a peer (ServerStatusManager)"

// shrunkCheck is whether any member pushed fewer than every instance after the kill.
func (s *memberRestart) shrunkCheck(m memberRestartMeasure) report.Expect {
	return report.No("any member pushed fewer than every instance after the kill", "yes", "no").
		From(memberRule + "; pushes read from every member's naming-push.log ([PUSH-SUCC] … DataSize)").
		Says(report.SaysYes("nacos#10209: restarting one member of three, a member that was not restarted pushed DataSize=0 and clients saw an empty list")).
		Because("Nacos 3.1's rules as read keep every instance listed through a member's restart; #10209 ran Nacos 2.x and was closed as invalid without a cause")
}

// fewestCheck is the fewest instances a caller's client held after the kill.
func (s *memberRestart) fewestCheck(c incidentCaller, m memberRestartMeasure) report.Check {
	n := m.rec.Instances
	e := report.Exactly(c.name+": fewest instances its client's listener held after the kill", float64(n), "").About(c.name).
		From(memberRule + "; the listener reports the client's cache (" + guardRule(c.guard) + ")")
	if c.guard == unguarded || c.guard == lbCache {
		e = e.Says(report.SaysValue("nacos#10209: clients were given an empty list", 0)).SameCount().
			Because("no member pushed or answered a shrunken list, so there was nothing for it to take")
	}
	return e.Judge(float64(m.fewest[c.name]))
}

// failCheck is a caller's calls that failed, from the kill to the end, for want of an
// instance or of the registry.
func (s *memberRestart) failCheck(c incidentCaller, m memberRestartMeasure) report.Check {
	n := m.after[c.name]
	e := report.Exactly(c.name+": calls failed for want of an instance or of the registry, from the kill to the end", 0, "").About(c.name).
		From("every instance lives and every list holds it (above); a client whose member died keeps its cache while it reconnects, " +
			"and a read meanwhile that tries to subscribe falls back to the cache when the request fails (NacosNamingService.tryToSubscribe); " +
			"counted by the caller's error class (no-instance, registry): a call that reached an instance and failed or timed out there is not the list's")
	if c.guard == unguarded || c.guard == lbCache {
		e = e.Says(report.Says("nacos#10209: services failed with an empty instance list"))
	}
	return e.JudgeText(float64(n[2]), fmt.Sprintf("%d of %d (%d failed in all)", n[2], n[0], n[1]))
}

// guardRule says what guards a caller's cache against an empty list.
func guardRule(g guard) string {
	switch g {
	case unguarded:
		return "unguarded: an empty push would replace it"
	case lbCache:
		return "Spring's Nacos client unguarded, LoadBalancer's 35 s cache above it"
	case fallback:
		return "its supplier falls back to the last non-empty list"
	case protection:
		return "namingPushEmptyProtection: an empty push is ignored"
	}
	return "nacos-sdk-go UpdateCacheWhenEmpty false: an empty push is ignored"
}

// expiryBounds is the band of the survivors' expiry of the killed member's clients, from the
// kill.
func expiryBounds() (lo, hi time.Duration) {
	return clientExpired - verifyEvery, clientExpired + cleanEvery + restartSample + ruleSlack
}

// expiryUnjudged says why the expiry is not judged when the run ended before the band's upper
// bound with the copies still held (a run shortened by --duration, as go test's): nothing was
// measured outside the band, and a longer run judges it. Empty otherwise.
func (s *memberRestart) expiryUnjudged(m memberRestartMeasure) string {
	_, hi := expiryBounds()
	if m.expiredAfter >= 0 || m.owned == 0 || m.peakClients <= m.rec.Instances || m.rec.End-m.kill.At >= hi {
		return ""
	}
	return fmt.Sprintf("The survivors still held the killed member's clients when the run ended, %.1f s after the kill, before "+
		"their expiry's upper bound (%.1f s): not judged (a --duration of at least --restart-at + %s judges it).",
		(m.rec.End - m.kill.At).Seconds(), hi.Seconds(), hi.Round(time.Second))
}

// expiryCheck is when the survivors dropped the killed member's copies of its instances'
// clients, from the kill.
func (s *memberRestart) expiryCheck(m memberRestartMeasure) report.Check {
	lo, hi := expiryBounds()
	e := report.Band("survivors: the killed member's instance clients dropped, after the kill", lo.Seconds(), hi.Seconds(), " s").Digits(1).
		From(fmt.Sprintf("their copies were last verified at most %s before the kill (DistroVerifyTimedTask); expired %s after that "+
			"(isExpire) at the cleaner's next run (every %s); read every %s: [%s − %s, %s + %s + %s + %s]", verifyEvery, clientExpired,
			cleanEvery, restartSample, clientExpired, verifyEvery, clientExpired, cleanEvery, restartSample, ruleSlack))
	switch {
	case m.owned == 0:
		return e.Invalid("the killed member held no instance's connection (each client picks a member at random)")
	case m.peakClients <= m.rec.Instances:
		return e.Invalid(fmt.Sprintf("the survivors never held more than %d publishers after the kill", m.rec.Instances))
	case m.expiredAfter < 0:
		return e.Invalid("the survivors still held the killed member's clients at the end")
	}
	return e.Judge(m.expiredAfter.Seconds())
}

// gates: every caller ran to the end and served before the kill, the member served again
// minServed before the end, the owners were read.
func (s *memberRestart) gates(h *history.History, m memberRestartMeasure) []report.Gate {
	var early, unsteady []string
	for _, n := range m.names {
		c := m.clients[n]
		if !c.started {
			early = append(early, n+": not started")
		}
		if c.err != "" {
			early = append(early, n+": "+report.ShortErr(c.err))
		}
		if b := callsOf(h.Ops, n, m.kill.At-time.Second, m.kill.At); b[0] == 0 || b[1] > 0 {
			unsteady = append(unsteady, fmt.Sprintf("%s %d of %d failed", n, b[1], b[0]))
		}
	}
	served := "never"
	if m.ready >= 0 {
		served = fmt.Sprintf("%.1f s before the end", (h.Timeline - m.ready).Seconds())
	}
	return []report.Gate{
		gate("every caller ran to the end", early, "all", "no caller ended early"),
		gate("every caller served in the second before the kill", unsteady, "none failed", "no failed call"),
		{Name: "the restarted member served again before the end", OK: m.ready >= 0 && h.Timeline-m.ready >= minServed,
			Measured: served, Limit: fmt.Sprintf("≥ %s", minServed)},
		{Name: "the instances' members were read", OK: len(m.rec.Owners) == m.rec.Instances,
			Measured: fmt.Sprintf("%d of %d", len(m.rec.Owners), m.rec.Instances), Limit: "every instance"},
	}
}

func (s *memberRestart) metrics(mt report.Metrics, m memberRestartMeasure) {
	mt["cluster_start_s"] = m.rec.ServerStart.Seconds()
	mt["member_start_cpu_max_s"] = math.NaN()
	for i, c := range m.rec.MembersCPU {
		if i == 0 || c.Seconds() > mt["member_start_cpu_max_s"] {
			mt["member_start_cpu_max_s"] = c.Seconds()
		}
	}
	mt["kill_s"], mt["relaunch_s"] = m.kill.At.Seconds(), m.relaunch.At.Seconds()
	mt["member_ready_after_launch_s"] = math.NaN()
	if m.ready >= 0 {
		mt["member_ready_after_launch_s"] = (m.ready - m.relaunch.At).Seconds()
	}
	mt["instances_on_killed_member"] = float64(m.owned)
	mt["shrunk_pushes"] = float64(m.shrunk)
	mt["survivors.peak_publishers"] = float64(m.peakClients)
	mt["survivors.expired_after_s"] = secondsOrNaN(m.expiredAfter)
	for _, n := range m.names {
		mt.AddSeriesMetrics(n, m.series[n])
		mt[n+".fail_after"], mt[n+".list_fail_after"] = float64(m.after[n][1]), float64(m.after[n][2])
		mt[n+".fewest_listed"] = float64(m.fewest[n])
	}
}

// membersTable lists every change of each member's publishers and every push of a shrunken
// list, from the kill.
func (s *memberRestart) membersTable(m memberRestartMeasure) report.Table {
	t := report.Table{Title: fmt.Sprintf("What each member held (its publishers of the service, read every %s: clients / distinct instances) "+
		"and its pushes of fewer than %d instances, from the kill", restartSample, m.rec.Instances), Header: []string{"t (s)", "member", "what"}}
	for _, r := range m.rec.Members {
		prev := [2]int{-2, -2}
		for _, p := range r.Publishers {
			if p.At < m.kill.At-time.Second || (p.Clients == prev[0] && p.Distinct == prev[1]) {
				continue
			}
			say := fmt.Sprintf("%d publishers, %d distinct instances", p.Clients, p.Distinct)
			if p.Clients < 0 {
				say = "no answer: " + report.ShortErr(p.Err)
			}
			t.Rows, prev = append(t.Rows, []string{fmt.Sprintf("%.1f", p.At.Seconds()), r.Name, say}), [2]int{p.Clients, p.Distinct}
		}
		for _, st := range r.Restarts {
			t.Rows = append(t.Rows, []string{fmt.Sprintf("%.1f", st.Ready.Seconds()), r.Name, "ready again (launched at " +
				fmt.Sprintf("%.1f s)", st.Launched.Seconds())})
		}
		for _, e := range r.Log {
			if e.Kind == nacos.PushOK && e.At >= m.kill.At && e.Size < m.rec.Instances {
				t.Rows = append(t.Rows, []string{fmt.Sprintf("%.1f", e.At.Seconds()), r.Name, fmt.Sprintf("pushed %d instances", e.Size)})
			}
		}
	}
	return t
}

// conclude says what the restart did.
func (s *memberRestart) conclude(res *report.Result, m memberRestartMeasure) {
	var failed []string
	for _, n := range m.names {
		if m.after[n][2] > 0 || m.fewest[n] < m.rec.Instances {
			failed = append(failed, fmt.Sprintf("%s (%d failed for want of an instance, fewest %d)", n, m.after[n][2], m.fewest[n]))
		}
	}
	ready := "never served again"
	if m.ready >= 0 {
		ready = fmt.Sprintf("served again %.1f s after its relaunch", (m.ready - m.relaunch.At).Seconds())
	}
	res.Conclude(fmt.Sprintf("%s, killed at %.1f s holding %d of the %d instances' connections, %s. Members pushed %d lists of fewer "+
		"than %d instances after the kill; callers whose list shrank or that failed for want of an instance: %s (every other failure "+
		"after the kill was a call to a live instance that failed or timed out there: %d).", s.Member, m.kill.At.Seconds(), m.owned,
		m.rec.Instances, ready, m.shrunk, m.rec.Instances, orNone(failed), s.otherFailures(m)))
	if m.expiredAfter >= 0 {
		res.Conclude(fmt.Sprintf("The survivors held up to %d publishers for %d instances until %.1f s after the kill, when the "+
			"killed member's unverified clients expired.", m.peakClients, m.rec.Instances, m.expiredAfter.Seconds()))
	}
}

// otherFailures counts every caller's failures after the kill that were not for want of an
// instance or of the registry.
func (s *memberRestart) otherFailures(m memberRestartMeasure) int {
	n := 0
	for _, c := range m.after {
		n += c[1] - c[2]
	}
	return n
}
