package nacosarticle

import (
	"fmt"
	"math"
	"time"

	"sdchaos/cluster"
	"sdchaos/report"
)

// partitionMeasure is what a minority-partition run measured.
type partitionMeasure struct {
	iso       string
	cut, mend report.Event
	// probes by op name.
	probes map[string]report.Op
	// leaderAfter is the time from the cut to the majority's agreed leader.
	leaderAfter time.Duration
	caughtUp    bool
	// catchUp is the time from the mend to the member serving the new key.
	catchUp time.Duration
}

var partitionOps = []string{opMajLeader, opMajPut, opMajKeepalive, opIsoSerRead, opIsoLinRead, opIsoPut, opCaughtUp}

// measure fills the measurement; why is non-empty when the run cannot judge.
func (s *minorityPartition) measure(h *report.History) (m partitionMeasure, why string) {
	m.probes = map[string]report.Op{}
	var ok bool
	if m.cut, ok = h.Events.First(report.PartitionMember, report.Inject); !ok {
		return m, "the member was not cut off"
	}
	if m.mend, ok = h.Events.First(report.PartitionMember, report.Heal); !ok {
		return m, "the partition was not mended"
	}
	if len(m.cut.Targets) > 0 {
		m.iso = m.cut.Targets[0]
	}
	for _, name := range partitionOps {
		op, ok := report.FindOp(h.Ops, name)
		if !ok {
			return m, "probe " + name + " was not recorded"
		}
		m.probes[name] = op
	}
	m.leaderAfter = m.probes[opMajLeader].End - m.cut.At
	cu := m.probes[opCaughtUp]
	m.caughtUp, m.catchUp = cu.Outcome == report.OK, cu.End-m.mend.At
	return m, ""
}

// Judge turns a minority-partition run into the result (pure).
func (s *minorityPartition) Judge(h *report.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, why := s.measure(h)
	if why != "" {
		res.AddCheck(report.Yes("isolated: serializable read", "succeeds", "fails").Invalid(why))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddTable(s.table(m))
	res.AddCheck(s.isolatedChecks(m)...)
	res.AddCheck(s.majorityChecks(m)...)
	s.conclude(res, m)
	s.judgeKV(res, h, m)
	return res
}

func okOf(op report.Op) bool { return op.Outcome == report.OK }

func (s *minorityPartition) metrics(mt report.Metrics, m partitionMeasure) {
	ser, lin, put := m.probes[opIsoSerRead], m.probes[opIsoLinRead], m.probes[opIsoPut]
	mt["iso.ser_read.ok"], mt["iso.ser_read.stale"] = report.B2F(okOf(ser)), report.B2F(okOf(ser) && ser.Count == 0)
	mt["iso.lin_read.ok"], mt["iso.put.ok"] = report.B2F(okOf(lin)), report.B2F(okOf(put))
	mt["iso.ser_read.ms"], mt["iso.lin_read.ms"], mt["iso.put.ms"] = report.Ms(ser.Latency()), report.Ms(lin.Latency()), report.Ms(put.Latency())
	mt["maj.put.ok"], mt["maj.keepalive.ok"] = report.B2F(okOf(m.probes[opMajPut])), report.B2F(okOf(m.probes[opMajKeepalive]))
	mt["maj.leader_ms"] = report.Ms(m.leaderAfter)
	mt["healed.caught_up"], mt["healed.catch_up_ms"] = report.B2F(m.caughtUp), report.Ms(m.catchUp)
}

// failsAtDeadline is a two-sided band around the probe deadline, in ms.
func (s *minorityPartition) failsAtDeadline(name string) report.Expect {
	to := report.Ms(s.OpTimeout)
	return report.Band(name, to-100, to+500, " ms").Digits(0).
		From("no quorum: ReadIndex and proposals wait, so the call fails at the caller's deadline (−100 ms, +500 ms)").
		Says(report.SaysValue("2002 ms (47.3)", 2002).OnlyIf(s.OpTimeout == 2*time.Second))
}

func (s *minorityPartition) isolatedChecks(m partitionMeasure) []report.Check {
	ser, lin, put := m.probes[opIsoSerRead], m.probes[opIsoLinRead], m.probes[opIsoPut]
	return []report.Check{
		report.Yes("isolated: serializable read", "succeeds", "fails").From("served from the member's own store").
			Says(report.SaysYes("succeeds (47.3)")).JudgeBool(okOf(ser)),
		report.AtMost("isolated: serializable read: latency", 50, " ms").Digits(1).From("a local read on loopback").
			Says(report.SaysValue("1 ms (47.3)", 1)).Judge(report.Ms(ser.Latency())),
		report.Yes("isolated: serializable read is stale", "stale", "current").
			From("the key written on the majority after the cut never reached the member").
			Says(report.Says("serializable reads serve local, possibly stale data")).JudgeBool(okOf(ser) && ser.Count == 0),
		report.No("isolated: linearizable read", "succeeds", "fails").From("ReadIndex needs a quorum").
			Says(report.SaysNo("fails: timeout (47.3)")).JudgeBool(okOf(lin)),
		s.failsAtDeadline("isolated: linearizable read: time to fail").Judge(report.Ms(lin.Latency())),
		report.No("isolated: put", "succeeds", "fails").From("a write needs a leader and a quorum").
			Says(report.SaysNo("fails: timeout (47.3)")).JudgeBool(okOf(put)),
		s.failsAtDeadline("isolated: put: time to fail").Judge(report.Ms(put.Latency())),
	}
}

func (s *minorityPartition) majorityChecks(m partitionMeasure) []report.Check {
	election := time.Duration(cluster.DefaultConfig().ElectionMs) * time.Millisecond
	catchUp := report.Band("healed: time until the isolated member serves the new key", 0, report.Ms(election+time.Second), " ms").Digits(0).
		From("the leader's next heartbeat (100 ms) brings it back as a follower (PreVote kept its term): ≤ election timeout + 1 s").
		Says(report.Says("catches up once the partition heals"))
	cs := []report.Check{
		report.Band("majority: agreed leader after the cut", 0, report.Ms(majorityElection()), " ms").Digits(0).
			From("2 of 3 members are a quorum: a follower cut off leaves the leader in place; a leader cut off is replaced within 2 × election timeout (+ 1 s of polling)").
			Says(report.Says("the majority keeps serving")).Judge(report.Ms(m.leaderAfter)),
		report.Yes("majority: put", "succeeds", "fails").From("the majority has a quorum and a leader").
			Says(report.SaysYes("the majority accepts writes")).JudgeBool(okOf(m.probes[opMajPut])),
		report.Yes("majority: instance keepalive", "succeeds", "fails").From("the renewal reaches the majority's leader").
			Says(report.SaysYes("the majority renews leases")).JudgeBool(okOf(m.probes[opMajKeepalive])),
	}
	if !m.caughtUp {
		return append(cs, catchUp.JudgeText(math.NaN(), fmt.Sprintf("still stale %.0f ms after the mend", report.Ms(m.catchUp))))
	}
	return append(cs, catchUp.Judge(report.Ms(m.catchUp)))
}

func word(p report.Op) string {
	if okOf(p) {
		return fmt.Sprintf("succeeds (%.0f ms)", report.Ms(p.Latency()))
	}
	return fmt.Sprintf("fails: %s (%.0f ms)", report.ShortErr(p.Err), report.Ms(p.Latency()))
}

func (s *minorityPartition) table(m partitionMeasure) report.Table {
	ser := m.probes[opIsoSerRead]
	serText := word(ser)
	if okOf(ser) {
		serText += map[bool]string{true: ", stale: new key missing", false: ", sees the new key"}[ser.Count == 0]
	}
	caught := fmt.Sprintf("no, still stale after %.0f ms", report.Ms(m.catchUp))
	if m.caughtUp {
		caught = fmt.Sprintf("yes, %.0f ms after healing", report.Ms(m.catchUp))
	}
	return report.Table{
		Title:  fmt.Sprintf("%s (%s) cut off from its peers, alive and reachable by clients; each probe with a %s deadline", m.iso, s.Isolate, s.OpTimeout),
		Header: []string{"where", "operation", "expected", "measured"},
		Rows: [][]string{
			{"majority", "leader agreed", "yes", fmt.Sprintf("%s, %.0f ms after the cut", m.probes[opMajLeader].Value, report.Ms(m.leaderAfter))},
			{"majority", "put a new key", "succeeds", word(m.probes[opMajPut])},
			{"majority", "renew an instance lease", "succeeds", word(m.probes[opMajKeepalive])},
			{m.iso, "serializable read of the new key", "succeeds, stale", serText},
			{m.iso, "linearizable read", "fails at the deadline", word(m.probes[opIsoLinRead])},
			{m.iso, "put", "fails at the deadline", word(m.probes[opIsoPut])},
			{m.iso + " after healing", "serves the new key", "yes", caught},
		},
	}
}

func (s *minorityPartition) conclude(res *report.Result, m partitionMeasure) {
	ser, lin, put := m.probes[opIsoSerRead], m.probes[opIsoLinRead], m.probes[opIsoPut]
	if okOf(ser) && ser.Count == 0 {
		res.Conclude(fmt.Sprintf("A client reading serializably from %s kept getting answers, but stale ones: the key written on the majority was missing.", m.iso))
	}
	if !okOf(lin) && !okOf(put) {
		res.Conclude(fmt.Sprintf("Linearizable reads and writes on %s failed at their deadline (%.0f and %.0f ms): a client pinned to it sees errors, not wrong data.",
			m.iso, report.Ms(lin.Latency()), report.Ms(put.Latency())))
	}
	if okOf(m.probes[opMajPut]) && okOf(m.probes[opMajKeepalive]) {
		res.Conclude(fmt.Sprintf("The majority had a leader %.0f ms after the cut and kept accepting writes and lease renewals.", report.Ms(m.leaderAfter)))
	}
	if m.caughtUp {
		res.Conclude(fmt.Sprintf("After healing, %s caught up in %.0f ms.", m.iso, report.Ms(m.catchUp)))
	} else {
		res.Conclude(fmt.Sprintf("After healing, %s had not caught up within %.0f ms.", m.iso, report.Ms(m.catchUp)))
	}
}
