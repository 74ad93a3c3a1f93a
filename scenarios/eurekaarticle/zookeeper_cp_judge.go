package eurekaarticle

import (
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/worlds/zookeeper"
)

// The article's words, as the checks quote them.
const (
	cpRefuses = "during a network partition or a leader election ZooKeeper briefly refuses reads and writes"
	cpStuck   = "every service that depends on it gets stuck"
	cpEurekaK = "Eureka keeps serving from the client's local copy of the registry"
)

// cpSlack is the allowance for a poll's period and scheduling in the
// timing bands (the member's state is asked every 200 ms).
const cpSlack = time.Second

// Judge turns a zookeeper-cp history into the result.
func (s *zkCP) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, ok, err := s.measure(h)
	switch {
	case err != nil:
		res.AddCheck(report.Yes("the run's data is readable", "yes", "no").Invalid(err.Error()))
		return res
	case !ok:
		res.AddCheck(report.Yes("the fault took effect", "yes", "no").Invalid("no fault was injected"))
		return res
	}
	secs := int(math.Ceil(h.Timeline.Seconds()))
	res.Series = report.PerSecond(h.Ops, cpCallers, secs)
	for _, name := range cpCallers {
		res.Metrics.AddSeriesMetrics(name, res.Series[name])
	}
	res.AddTable(report.SecondsTable("Per-second ok/fail of each ZooKeeper caller", cpRows(), res.Series, h.Events))
	res.AddTable(s.membersTable(m))
	s.memberChecks(res, m)
	s.callerChecks(res, m)
	if m.eureka != nil {
		s.eurekaSide(res, m)
	}
	if m.data.EurekaErr != "" {
		res.AddCheck(report.Yes("Eureka: the real Eureka part ran", "yes", "no").Invalid(m.data.EurekaErr))
	}
	res.AddTable(s.besideTable(m))
	s.conclude(res, m)
	return res
}

// cpRows label the ZooKeeper callers.
func cpRows() []report.Row {
	return []report.Row{
		{Key: cpCurator, Label: cpCurator + ": Curator ServiceDiscovery + ServiceCache (JVM)"},
		{Key: cpSpring, Label: cpSpring + ": Spring Cloud Zookeeper + LoadBalancer (JVM)"},
		{Key: cpKeep, Label: cpKeep + ": keep the list on a failed refresh (go-zookeeper)"},
		{Key: cpClear, Label: cpClear + ": clear the list on a failed refresh (go-zookeeper)"},
	}
}

// membersTable is each member's refusals during the fault.
func (s *zkCP) membersTable(m cpMeasure) report.Table {
	t := report.Table{Title: fmt.Sprintf("What each member refused during the fault (%s at %s; times from the fault)", m.label, fmtS(m.faultAt)),
		Header: []string{"member", "part", "not serving (its srvr)", "reads refused", "writes refused", "registrations refused"}}
	for _, cm := range m.members {
		row := []string{cm.name, s.part(cm)}
		for _, op := range cpOps {
			row = append(row, refusalText(cm.refused[op]))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{fmt.Sprintf("each member asked alone: its state every %s, a read (the instance list) and a write on a session pinned to it every %s, "+
		"a registration on a new session every %s, each with a %s deadline; a span runs from the first refused ask to the last (+ one period)",
		cpEvery[zookeeper.ZKMode], cpEvery[experiment.List], cpEvery[experiment.Register], rig.ProbeTimeout)}
	return t
}

// part says what the fault did to a member.
func (s *zkCP) part(cm cpMember) string {
	switch {
	case cm.victim && s.Fault == cpKillLeader && s.Packets:
		return "leader, every packet dropped"
	case cm.victim && s.Fault == cpKillLeader:
		return "leader, SIGKILLed"
	case cm.victim && s.Fault == cpCutLeader:
		return "leader, cut off from its peers"
	case cm.victim:
		return "follower, cut off from its peers"
	}
	return "the rest"
}

// refusalText is "3 of 40: 1.2–2.5 s (1.3 s)", or "none of 40".
func refusalText(r cpRefusal) string {
	if r.asked == 0 {
		return "not asked"
	}
	if !r.span.ok {
		return fmt.Sprintf("none of %d", r.asked)
	}
	return fmt.Sprintf("%d of %d: %s–%s s (%s)", r.failed, r.asked, num1(r.span.from), num1(r.span.to), fmtS(r.span.length()))
}

// memberChecks judge what each member refused against ZooKeeper's rules.
func (s *zkCP) memberChecks(res *report.Result, m cpMeasure) {
	for _, cm := range m.members {
		switch {
		case cm.victim && s.Fault == cpKillLeader:
			continue // dead (or gone from the network): nothing of its own to judge
		case cm.victim:
			s.cutOffChecks(res, m, cm)
		default:
			s.survivorChecks(res, m, cm)
		}
	}
}

// rules returns ZooKeeper's timing on the run's ensemble.
func (m cpMeasure) rules() (tick time.Duration, follower, leader, election time.Duration) {
	tick = m.data.TickTime
	return tick, zookeeper.FollowerCutOff(tick, m.data.SyncLimit), zookeeper.LeaderCutOff(tick, m.data.SyncLimit),
		zookeeper.ElectionBound(tick, m.data.InitLimit)
}

// survivorChecks: after the leader was killed every survivor goes LOOKING
// at once; after it was cut off (or its packets dropped) at their read
// timeout; either way they elect within ElectionBound. With a follower cut
// off the leader and the other follower are a quorum and never stop.
func (s *zkCP) survivorChecks(res *report.Result, m cpMeasure, cm cpMember) {
	_, follower, _, election := m.rules()
	mode := cm.refused[zookeeper.ZKMode]
	if s.Fault == cpCutFollower {
		e := report.No(cm.name+": stopped serving while a follower was cut off", "yes", "no").Says(report.SaysYes(cpRefuses)).
			From("the leader and the other follower are 2 of 3, a quorum: they read and commit throughout").
			Because(fmt.Sprintf("the majority side kept its quorum: %s answered %d of %d state asks during the partition; only the cut-off member refused", cm.name, mode.asked-mode.failed, mode.asked))
		res.AddCheck(e.JudgeBool(mode.span.ok))
		return
	}
	detect, why := time.Duration(0), "its leader's socket closed: LOOKING at once (Follower.java:122-127)"
	if s.Fault != cpKillLeader || s.Packets {
		detect, why = follower, fmt.Sprintf("its read timeout of syncLimit × tickTime, %s (Learner.java:815), then LOOKING", follower)
	}
	e := report.Yes(cm.name+": refused requests after losing its leader (its own state)", "yes", "no").Says(report.SaysYes(cpRefuses)).
		From(why + "; a LOOKING member refuses every request (NIOServerCnxn.java:571-572) until a new leader has synced it")
	if m.healAt-m.faultAt < detect+cpSlack {
		res.AddCheck(e.Invalid(fmt.Sprintf("the fault lasted %s, not past the detection at %s", fmtS(m.healAt-m.faultAt), fmtS(detect))))
		return
	}
	res.AddCheck(e.JudgeBool(mode.span.ok))
	if !mode.span.ok {
		return
	}
	b := report.AtMost(cm.name+": not serving for", (election + cpSlack).Seconds(), " s").Digits(1).Says(report.Says("briefly")).
		From(fmt.Sprintf("a successful election takes at most initLimit × tickTime + 2 × finalizeWait = %s (Leader.java:1532, 1643; FastLeaderElection.java:62, 1050), + 1 s for the polls", fmtS(election)))
	res.AddCheck(b.Judge(mode.span.length().Seconds()))
	s.opsCheck(res, cm, detect+election)
}

// opsCheck bounds the span of refused reads, writes and registrations
// through a member: until it serves again (by elected), plus the ask's
// deadline and go-zookeeper's reconnection (a 1 s pause after every server
// of its list refused, and a 1 s dial).
func (s *zkCP) opsCheck(res *report.Result, cm cpMember, elected time.Duration) {
	longest, which := time.Duration(0), ""
	for _, op := range []experiment.ProbeOp{experiment.List, zookeeper.ZKWrite, experiment.Register} {
		if r := cm.refused[op]; r.span.ok && r.span.to > longest {
			longest, which = r.span.to, string(op)
		}
	}
	bound := elected + rig.ProbeTimeout + 2*time.Second + cpSlack
	e := report.AtMost(cm.name+": last read, write or registration refused, after the fault", bound.Seconds(), " s").Digits(1).
		From(fmt.Sprintf("served again once elected (≤ %s after the fault), + the ask's %s deadline, go-zookeeper's 1 s pause and 1 s dial, + 1 s", fmtS(elected), rig.ProbeTimeout))
	if which == "" {
		res.AddCheck(e.JudgeText(0, "none refused"))
		return
	}
	res.AddCheck(e.JudgeText(longest.Seconds(), fmt.Sprintf("%s s (%s)", num1(longest), which)))
}

// cutOffChecks: the cut-off member serves reads from its copy until it
// notices (a follower's read timeout, a leader's quorum check), then
// refuses until the cut heals.
func (s *zkCP) cutOffChecks(res *report.Result, m cpMeasure, cm cpMember) {
	tick, follower, leader, _ := m.rules()
	stop, rule := follower, "a follower's read timeout of syncLimit × tickTime (Learner.java:815)"
	if s.Fault == cpCutLeader {
		stop, rule = leader, "a leader's check, every tick, for a quorum of acks within syncLimit ticks (Leader.java:778, 832-848)"
	}
	mode := cm.refused[zookeeper.ZKMode]
	e := report.Yes(cm.name+" (cut off): stopped serving", "yes", "no").Says(report.SaysYes(cpRefuses)).From(rule + ", then LOOKING with no quorum to join")
	if m.healAt-m.faultAt < stop+cpSlack {
		res.AddCheck(e.Invalid(fmt.Sprintf("the cut lasted %s, not past %s", fmtS(m.healAt-m.faultAt), fmtS(stop))))
		return
	}
	res.AddCheck(e.JudgeBool(mode.span.ok))
	if !mode.span.ok {
		return
	}
	lo, hi := stop-tick, stop+cpSlack
	b := report.Band(cm.name+" (cut off): stopped serving after", lo.Seconds(), hi.Seconds(), " s").Digits(1).
		From(fmt.Sprintf("%s: %s after the last packet it heard (≤ half a tick before the cut: pings every half tick, Leader.java:778, 844), + 1 s for the polls", rule, fmtS(stop)))
	res.AddCheck(b.Judge(mode.span.from.Seconds()))
}

// callerChecks judge the article's "gets stuck" for each caller.
func (s *zkCP) callerChecks(res *report.Result, m cpMeasure) {
	for _, c := range m.callers {
		e := report.No(c.name+": calls failed while ZooKeeper refused (stuck)", "yes", "no").Says(report.SaysYes(cpStuck))
		lo, hi, basis := s.stuckBand(m, c)
		e.Lo, e.Hi = lo, hi
		e = e.From(basis).Because(s.servedOn(m, c))
		if c.calls == 0 {
			res.AddCheck(e.Invalid("no call was scheduled during the fault"))
			continue
		}
		res.AddCheck(e.JudgeText(report.B2F(c.failed > 0), fmt.Sprintf("%s: %d of %d failed", yesNo(c.failed > 0), c.failed, c.calls)))
	}
	if cur := m.callers[0]; cur.name == cpCurator {
		lostBand := report.No(cpCurator+": went LOST", "yes", "no").
			From(fmt.Sprintf("Curator injects LOST after a whole session timeout SUSPENDED (its 60 s, granted %s: 20 ticks; ConnectionStateManager.java:240-300); "+
				"no member refused that long", fmtS(20*m.data.TickTime)))
		if m.none.length() >= 20*m.data.TickTime {
			lostBand.Lo = 0
			lostBand.Hi = 1
		}
		res.AddCheck(lostBand.JudgeText(report.B2F(cur.lost > 0), fmt.Sprintf("%d LOST, %d SUSPENDED", cur.lost, cur.suspended)))
	}
}

// stuckBand is what ZooKeeper's and the clients' rules predict for a
// caller: whether its calls fail while ZooKeeper refuses (0 no, 1 yes).
func (s *zkCP) stuckBand(m cpMeasure, c cpCaller) (float64, float64, string) {
	switch c.name {
	case cpCurator:
		return 0, 0, "ServiceCacheImpl changes its list only on child events, never on SUSPENDED or LOST (ServiceCacheImpl.java:160-172): every call goes to a live instance"
	case cpKeep:
		return 0, 0, "a failed refresh keeps the old list and every instance lives"
	case cpSpring:
		return s.springBand(m, c)
	}
	need := rig.DefaultRefresh + rig.RefreshTimeout + 2*cpEvery[zookeeper.ZKMode]
	if m.none.length() >= need {
		return 1, 1, fmt.Sprintf("no member served for %s ≥ refresh + its deadline (%s): a refresh failed and emptied the list", fmtS(m.none.length()), fmtS(need))
	}
	return 0, 1, fmt.Sprintf("either: it fails only if one of its refreshes (every %s, %s deadline) found no member serving it (no member served for %s)",
		rig.DefaultRefresh, rig.RefreshTimeout, fmtS(m.none.length()))
}

// springBand: Spring Cloud LoadBalancer serves from its 35 s cache, filled
// by the first call; it asks ZooKeeper again only when that expires, and a
// caller fails only if that falls while the members refuse.
func (s *zkCP) springBand(m cpMeasure, c cpCaller) (float64, float64, string) {
	basis := fmt.Sprintf("LoadBalancer caches the list %s from its fill, at the first call (%s s): it asks ZooKeeper again at each expiry; an empty answer "+
		"is never cached (CachingServiceInstanceListSupplier.java:65, LoadBalancerCacheProperties.java:42)", fmtS(zookeeper.LoadBalancerCacheTTL), num1(c.firstCall))
	if c.firstCall < 0 || !m.any.ok {
		return 0, 0, basis + "; no member refused"
	}
	from, to := m.faultAt+m.any.from-cpSlack, m.faultAt+m.any.to+2*time.Second
	for k := time.Duration(1); c.firstCall+k*zookeeper.LoadBalancerCacheTTL < to+time.Second; k++ {
		if at := c.firstCall + k*zookeeper.LoadBalancerCacheTTL; at >= from-time.Second {
			return 0, 1, basis + fmt.Sprintf("; an expiry (%s s) falls near the refusals (%s–%s s): either", num1(at), num1(from), num1(to))
		}
	}
	return 0, 0, basis + fmt.Sprintf("; no expiry falls in the refusals (%s–%s s of the run)", num1(from), num1(to))
}

// servedOn is the measured cause of a caller that served on.
func (s *zkCP) servedOn(m cpMeasure, c cpCaller) string {
	states := ""
	if c.suspended > 0 {
		states = fmt.Sprintf("; its client went SUSPENDED %d time(s)", c.suspended)
		if c.reconnectedAfter >= 0 {
			states += fmt.Sprintf(", RECONNECTED %s after the first", fmtS(c.reconnectedAfter))
		}
	}
	return fmt.Sprintf("%s served %d of %d calls during the fault while members refused for up to %s (its own copy of the list)%s",
		c.name, c.calls-c.failed, c.calls, fmtS(m.any.length()), states)
}

// eurekaSide adds the real Eureka part's checks (eureka-failover's judge at
// real time) and the article's Eureka claim.
func (s *zkCP) eurekaSide(res *report.Result, m cpMeasure) {
	e := m.eureka
	sub := s.eurekaPart().Judge(e.h)
	for _, c := range sub.Checks {
		c.Name = "Eureka: " + c.Name
		res.AddCheck(c)
	}
	for _, g := range report.Gates(e.h) {
		g.Name = "Eureka: " + g.Name
		res.Gates = append(res.Gates, g)
	}
	k := report.Exactly("Eureka: tasks failed after a server of three was killed", 0, "").Says(report.SaysValue(cpEurekaK, 0)).SameCount().
		From("a failed fetch keeps the cached registry (DiscoveryClient), and the tasks run on it")
	res.AddCheck(k.JudgeText(float64(e.failed), fmt.Sprintf("%d of %d", e.failed, e.calls)))
	series := report.PerSecond(e.h.Ops, []string{e.sched}, int(math.Ceil(e.h.Timeline.Seconds())))
	res.Series["eureka: "+e.sched] = series[e.sched]
}

// besideTable puts every client of both worlds in one table.
func (s *zkCP) besideTable(m cpMeasure) report.Table {
	t := report.Table{Title: "ZooKeeper beside Eureka: what the registry refused and what each client got",
		Header: []string{"registry", "client", "what the registry did after the fault", "calls during the fault: failed / all", "the client"}}
	zk := fmt.Sprintf("ZooKeeper %s", zookeeper.ServerVersion)
	did := s.zkDid(m)
	for _, c := range m.callers {
		t.Rows = append(t.Rows, []string{zk, c.name, did, fmt.Sprintf("%d / %d", c.failed, c.calls), s.clientText(c)})
	}
	if e := m.eureka; e != nil {
		sm := e.m.scheds[0]
		didE := fmt.Sprintf("%s (of 3 servers) SIGKILLed at %s s; the other two served", e.server, num1(e.killAt))
		client := fmt.Sprintf("switched to %s %s after the kill, %d failed fetch attempts", sm.to, fmtS(sm.switchAfter), sm.failed)
		t.Rows = append(t.Rows, []string{"Eureka (Spring Cloud Netflix, real)", "DiscoveryClient, fetch every " + eurekaFetchText(m) + "; tasks over its cache",
			didE, fmt.Sprintf("%d / %d", e.failed, e.calls), client})
	}
	t.Notes = []string{fmt.Sprintf("calls during the fault: scheduled in the %s from the fault (ZooKeeper: until its heal; Eureka: from the kill), both at %g calls/s, real time",
		fmtS(m.healAt-m.faultAt), s.Rate)}
	return t
}

func eurekaFetchText(m cpMeasure) string { return fmtS(m.data.EurekaFetch) }

// zkDid summarises what the members refused.
func (s *zkCP) zkDid(m cpMeasure) string {
	var parts []string
	for _, cm := range m.members {
		r := cm.refused[zookeeper.ZKMode]
		switch {
		case cm.victim:
			parts = append(parts, fmt.Sprintf("%s %s", cm.name, s.part(cm)))
		case r.span.ok:
			parts = append(parts, fmt.Sprintf("%s not serving %s", cm.name, fmtS(r.span.length())))
		default:
			parts = append(parts, cm.name+" served throughout")
		}
	}
	return strings.Join(parts, "; ")
}

// clientText is a caller's client states.
func (s *zkCP) clientText(c cpCaller) string {
	if c.name == cpKeep || c.name == cpClear {
		return "go-zookeeper, refresh every 1 s"
	}
	out := fmt.Sprintf("%d SUSPENDED, %d LOST", c.suspended, c.lost)
	if c.reconnectedAfter >= 0 {
		out += fmt.Sprintf(", RECONNECTED %s after", fmtS(c.reconnectedAfter))
	}
	return out
}

// conclude says what the run showed.
func (s *zkCP) conclude(res *report.Result, m cpMeasure) {
	res.Conclude(fmt.Sprintf("The ensemble formed its quorum %s after its launch; the Java clients were ready %s after theirs. %s.",
		fmtS(m.data.QuorumAfter), fmtS(m.data.JavaReady), s.zkDid(m)))
	for _, c := range m.callers {
		res.Conclude(fmt.Sprintf("%s: %d of %d calls failed during the fault (%s).", c.name, c.failed, c.calls, s.clientText(c)))
	}
	if e := m.eureka; e != nil {
		res.Conclude(fmt.Sprintf("Real Eureka, %s killed: %d of %d tasks failed in the %s after the kill; the client switched %s after it.",
			e.server, e.failed, e.calls, fmtS(m.healAt-m.faultAt), fmtS(e.m.scheds[0].switchAfter)))
	}
	wall := "ZooKeeper part " + fmtS(m.data.ZooKeeperWall)
	if m.data.EurekaWall > 0 {
		wall += ", Eureka part " + fmtS(m.data.EurekaWall)
	}
	res.Conclude(fmt.Sprintf("Wall time: %s; the ZooKeeper part's %s.", wall, m.data.Memory))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// fmtS formats a duration in seconds with one decimal ("1.2 s").
func fmtS(d time.Duration) string { return num1(d) + " s" }

// num1 formats a duration as seconds with one decimal.
func num1(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()) }
