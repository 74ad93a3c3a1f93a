package article47

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"sdchaos/cluster"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// minorityMeasure is what a minority run measured.
type minorityMeasure struct {
	survivor   string
	kill, heal history.Event
	// leaderless is how long after the kill the survivor reported no leader.
	leaderless time.Duration
	// probes on the survivor, by op name (found false if missing).
	probes map[string]history.Op
	// leaderAfter is the time from the restart to an agreed leader.
	leaderAfter time.Duration
	present     int
	presentOK   bool
	ttls        []float64
	// ttlDelay is the longest time from the election to a TTL read.
	ttlDelay   time.Duration
	endPresent int
}

// survivorProbes are the four operations on the survivor and the metric
// each one's outcome and latency are stored under.
var survivorProbes = []struct{ op, metric string }{
	{opLinRead, "lin_read"}, {opSerRead, "ser_read"}, {opPut, "put"}, {opKeepalive, "keepalive"},
}

func (s *minority) measure(h *history.History) (minorityMeasure, string) {
	m := minorityMeasure{probes: map[string]history.Op{}, endPresent: -1}
	var ok bool
	if m.kill, ok = h.Events.First(history.KillMembers, history.Inject); !ok {
		return m, "no SIGKILL of the two members was recorded"
	}
	if m.heal, ok = h.Events.First(history.KillMembers, history.Heal); !ok {
		return m, "the killed members were not restarted"
	}
	lf, ok := history.FindOp(h.Ops, opLeaderless)
	if !ok || lf.Outcome != history.OK {
		return m, "the survivor never reported losing its leader"
	}
	m.survivor, m.leaderless = lf.Target, lf.End-m.kill.At
	for _, p := range survivorProbes {
		op, ok := history.FindOp(h.Ops, p.op)
		if !ok {
			return m, "probe " + p.op + " was not recorded"
		}
		m.probes[p.op] = op
	}
	leader, ok := history.FindOp(h.Ops, opLeader)
	if !ok || leader.Outcome != history.OK {
		return m, "no leader after the restart"
	}
	m.leaderAfter = leader.End - m.heal.At
	if keys, ok := history.FindOp(h.Ops, opKeys); ok && keys.Outcome == history.OK {
		m.present, m.presentOK = keys.Count, true
	}
	for _, op := range history.Filter(h.Ops, opTTL) {
		if op.Outcome == history.OK {
			m.ttls = append(m.ttls, float64(op.Count))
			m.ttlDelay = max(m.ttlDelay, op.End-leader.End)
		}
	}
	if end, ok := history.FindOp(h.Ops, opEndKeys); ok && end.Outcome == history.OK {
		m.endPresent = end.Count
	}
	return m, ""
}

// Judge turns a minority run into the result (pure).
func (s *minority) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, why := s.measure(h)
	if why != "" {
		res.AddCheck(report.No("linearizable read on the survivor", "succeeds", "fails").Invalid(why))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddTable(s.table(m))
	res.AddCheck(s.probeChecks(m)...)
	res.AddCheck(s.recoveryChecks(m)...)
	s.conclude(res, m)
	s.judgeKV(res, h, m)
	return res
}

func (s *minority) metrics(mt report.Metrics, m minorityMeasure) {
	for _, p := range survivorProbes {
		op, key := m.probes[p.op], p.metric
		mt[key+".ok"], mt[key+".ms"] = report.B2F(op.Outcome == history.OK), report.Ms(op.Latency())
	}
	mt["ser_read.keys"] = float64(m.probes[opSerRead].Count)
	mt["survivor.leaderless_ms"] = report.Ms(m.leaderless)
	mt["after.present"], mt["after.leader_ms"] = float64(m.present), report.Ms(m.leaderAfter)
	mt["after.ttl_min_s"], mt["after.ttl_max_s"] = report.MinMax(m.ttls)
	mt["after.ttl_read_delay_ms"] = report.Ms(m.ttlDelay)
	mt["end.present"] = float64(m.endPresent)
}

// articleSetup reports whether the run has the article's instances, ttl and deadline.
func (s *minority) articleSetup() bool {
	return s.Svc.Instances == 3 && s.Svc.TTL == 20*time.Second && s.OpTimeout == 2*time.Second
}

// failsAtDeadline is a two-sided band around the probe deadline, in ms.
func (s *minority) failsAtDeadline(name, article string, v float64) report.Expect {
	to := report.Ms(s.OpTimeout)
	return report.Band(name, to-100, to+500, " ms").Digits(0).From("no quorum: fails at the caller's deadline (−100 ms, +500 ms)").
		Says(report.SaysValue(article, v).OnlyIf(s.articleSetup())).Apply(scenarios.AgreeDeadline)
}

func (s *minority) probeChecks(m minorityMeasure) []report.Check {
	lin, ser, put, ka := m.probes[opLinRead], m.probes[opSerRead], m.probes[opPut], m.probes[opKeepalive]
	ok := func(op history.Op) bool { return op.Outcome == history.OK }
	return []report.Check{
		report.No("linearizable read on the survivor", "succeeds", "fails").From("ReadIndex needs a quorum").
			Says(report.SaysNo("fails (timeout)")).JudgeBool(ok(lin)),
		s.failsAtDeadline("linearizable read: time to fail", "2002 ms", 2002).Judge(report.Ms(lin.Latency())),
		report.Yes("serializable read on the survivor", "succeeds", "fails").From("served from the member's own store").
			Says(report.SaysYes("succeeds")).JudgeBool(ok(ser)),
		report.AtMost("serializable read: latency", 50, " ms").Digits(1).From("a local read on loopback").
			Says(report.SaysValue("1 ms", 1)).Apply(scenarios.AgreeLocalRead).Judge(report.Ms(ser.Latency())),
		report.Exactly("serializable read: instance keys seen", float64(s.Svc.Instances), "").From("--instances, registered on fresh data dirs").
			Says(report.SaysValue("6 (3 + 3 left over from its earlier sections)", 6).OnlyIf(s.Svc.Instances == 3)).SameCount().
			Because("the article's cluster still held the 3 keys of its earlier sections; every run here starts on empty data dirs").
			Judge(float64(ser.Count)),
		report.No("put on the survivor", "succeeds", "fails").From("a write needs a leader").
			Says(report.SaysNo("fails (timeout)")).JudgeBool(ok(put)),
		s.failsAtDeadline("put: time to fail", "2002 ms", 2002).Judge(report.Ms(put.Latency())),
		report.No("lease keepalive on the survivor", "succeeds", "fails").From("a renewal needs the leader").
			Says(report.SaysNo("fails (timeout)")).JudgeBool(ok(ka)),
		s.failsAtDeadline("keepalive: time to fail", "2003 ms", 2003).Judge(report.Ms(ka.Latency())),
	}
}

// ttlBand is where a lease reset by the new leader must be when read
// delay after the election; notReset is the most a lease not reset could show.
func (s *minority) ttlBand(delay time.Duration) (lo, hi, notReset float64) {
	election := time.Duration(cluster.DefaultConfig().ElectionMs) * time.Millisecond
	ttl := s.Svc.TTL.Seconds()
	return ttl - math.Ceil(delay.Seconds()) - 1, ttl + election.Seconds() + 1, ttl - s.Outage.Seconds()
}

func (s *minority) recoveryChecks(m minorityMeasure) []report.Check {
	at := s.articleSetup()
	present := report.Exactly("instance keys present after recovery", float64(s.Svc.Instances), "").
		From("leases are not revoked without a leader; a new leader resets them").Says(report.SaysValue("3 / 3", 3).OnlyIf(at)).SameCount()
	cs := []report.Check{present.Judge(float64(m.present))}
	if !m.presentOK {
		cs[0] = present.Invalid("the keys could not be read after recovery")
	}
	lo, hi, notReset := s.ttlBand(m.ttlDelay)
	basis := fmt.Sprintf("reset by the new leader: [ttl − read delay − 1, ttl + election timeout + 1]; a lease not reset shows ≤ %s s", report.Num(notReset))
	low := s.ttlAgree(report.Band("lowest remaining lease TTL after recovery", lo, hi, " s").From(basis).Says(report.SaysValue("18 s", 18).OnlyIf(at)), m)
	high := s.ttlAgree(report.Band("highest remaining lease TTL after recovery", lo, hi, " s").From(basis).Says(report.SaysValue("19 s", 19).OnlyIf(at)), m)
	switch {
	case len(m.ttls) == 0:
		return append(cs, low.Invalid("no lease TTL was read"), high.Invalid("no lease TTL was read"))
	case lo <= notReset:
		why := fmt.Sprintf("the outage (%s) is too short to tell a reset lease from a kept one", s.Outage)
		return append(cs, low.Invalid(why), high.Invalid(why))
	}
	tmin, tmax := report.MinMax(m.ttls)
	return append(cs, low.Judge(tmin), high.Judge(tmax))
}

// ttlAgree sets the agreement of a remaining lease TTL with the article's.
func (s *minority) ttlAgree(e report.Expect, m minorityMeasure) report.Expect {
	return e.Within(1, "remaining TTLs are whole seconds counted down from the new leader's reset: a read one second later shows one less").
		Spread(fmt.Sprintf("the remaining TTL is --ttl minus the time from the new leader's reset to the read: this run read it %.0f ms after the election, "+
			"the article's 18–19 s of a 20 s ttl are reads 1–2 s after the reset", report.Ms(m.ttlDelay)))
}

func (s *minority) table(m minorityMeasure) report.Table {
	row := func(op, article string, p history.Op, extra string) []string {
		got := "succeeds"
		if p.Outcome != history.OK {
			got = "fails: " + report.ShortErr(p.Err)
		}
		return []string{op, article, fmt.Sprintf("%s (%.0f ms)%s", got, report.Ms(p.Latency()), extra)}
	}
	ser := m.probes[opSerRead]
	return report.Table{Title: fmt.Sprintf("On the survivor %s, each with a %s deadline (article 47.3)", m.survivor, s.OpTimeout),
		Header: []string{"operation", "article", "measured"},
		Rows: [][]string{
			{"survivor reports no leader", "—", fmt.Sprintf("%.0f ms after the kill", report.Ms(m.leaderless))},
			row("linearizable read (default)", "fails: timeout (2002 ms)", m.probes[opLinRead], ""),
			row("serializable read (local)", "succeeds (1 ms), sees the /svc/ keys (6: 3 + 3 left over)", ser, fmt.Sprintf(", sees %d keys", ser.Count)),
			row("write", "fails: timeout (2002 ms)", m.probes[opPut], ""),
			row("lease keepalive", "fails: timeout (2003 ms)", m.probes[opKeepalive], ""),
			{"instances present after the majority returns", "3 / 3", fmt.Sprintf("%d / %d (leader %.0f ms after the restart)", m.present, s.Svc.Instances, report.Ms(m.leaderAfter))},
			{"remaining TTL of each lease after recovery", "19, 18, 18 s", fmt.Sprintf("%s s (read ≤ %.0f ms after the election)", report.JoinNums(m.ttls), report.Ms(m.ttlDelay))},
			{"instances present at the end of the timeline", "—", fmt.Sprintf("%d / %d", m.endPresent, s.Svc.Instances)},
		}}
}

func (s *minority) conclude(res *report.Result, m minorityMeasure) {
	var failed []string
	for name, what := range map[string]string{opLinRead: "linearizable reads", opPut: "writes", opKeepalive: "keepalives"} {
		if m.probes[name].Outcome != history.OK {
			failed = append(failed, what)
		}
	}
	slices.Sort(failed)
	if len(failed) > 0 {
		res.Conclude(fmt.Sprintf("With only %s left, %s failed on it (no quorum, no leader).", m.survivor, strings.Join(failed, ", ")))
	}
	if ser := m.probes[opSerRead]; ser.Outcome == history.OK {
		res.Conclude(fmt.Sprintf("Serializable reads still served local data in %.1f ms (%d keys): a client that reads serializably keeps discovering instances, possibly stale ones.",
			report.Ms(ser.Latency()), ser.Count))
	}
	lo, hi := report.MinMax(m.ttls)
	_, _, notReset := s.ttlBand(m.ttlDelay)
	res.Conclude(fmt.Sprintf("After %s of outage and a new leader, %d of %d instance keys were still there with %s–%s s left on their leases (ttl %s; a lease not reset would show at most %s s): leases were not mass-expired but reset by the new leader.",
		s.Outage, m.present, s.Svc.Instances, report.Num(lo), report.Num(hi), s.Svc.TTL, report.Num(notReset)))
}
