package nacosarticle

import (
	"fmt"
	"math"
	"time"

	"sdchaos/cluster"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// partitionMeasure is what a minority-partition run measured.
type partitionMeasure struct {
	iso       string
	cut, mend history.Event
	// packets says the cut was made of dropped packets (--cut packets).
	packets bool
	// probes by op name.
	probes map[string]history.Op
	// leaderAfter is the time from the cut to the majority's agreed leader.
	leaderAfter time.Duration
	caughtUp    bool
	// catchUp is the time from the mend to the member serving the new key.
	catchUp time.Duration
}

var partitionOps = []string{opMajLeader, opMajPut, opMajKeepalive, opIsoSerRead, opIsoLinRead, opIsoPut, opCaughtUp}

// measure fills the measurement; why is non-empty when the run cannot judge.
func (s *minorityPartition) measure(h *history.History) (m partitionMeasure, why string) {
	m.probes = map[string]history.Op{}
	var ok bool
	if m.cut, ok = firstOf(h.Events, cutKinds, history.Inject); !ok {
		return m, "the member was not cut off"
	}
	if m.mend, ok = h.Events.First(m.cut.Kind, history.Heal); !ok {
		return m, "the partition was not mended"
	}
	m.packets = m.cut.Kind == history.PacketDropPeers
	if len(m.cut.Targets) > 0 {
		m.iso = m.cut.Targets[0]
	}
	for _, name := range partitionOps {
		op, ok := history.FindOp(h.Ops, name)
		if !ok {
			return m, "probe " + name + " was not recorded"
		}
		m.probes[name] = op
	}
	m.leaderAfter = m.probes[opMajLeader].End - m.cut.At
	cu := m.probes[opCaughtUp]
	m.caughtUp, m.catchUp = cu.Outcome == history.OK, cu.End-m.mend.At
	return m, ""
}

// cutKinds are the faults that cut the member off: etcd's CutPeer, or its
// packets dropped (--cut packets).
var cutKinds = []history.EventKind{history.PartitionMember, history.PacketDropPeers}

// firstOf returns the first event in phase of the first kind that has one.
func firstOf(es history.Events, kinds []history.EventKind, phase history.Phase) (history.Event, bool) {
	for _, k := range kinds {
		if e, ok := es.First(k, phase); ok {
			return e, true
		}
	}
	return history.Event{}, false
}

// staleJudged reports whether the cut forces the member's serializable
// read to be stale: not for a one-way packet drop, which lets the member
// receive what its peers send until its lost ACKs stall their connections.
func (s *minorityPartition) staleJudged(m partitionMeasure) bool { return !(m.packets && s.OneWay) }

// catchUpMax bounds the time from the mend to the member serving the new
// key: the leader's next heartbeat brings it back (≤ election timeout + 1 s
// of polling); after a cut of packets, cut long, what the peers sent waits
// first in TCP's retransmission back-off (Linux: from 200 ms for data, 1 s
// for a SYN, doubling each time), so its first retransmission after the
// heal comes at most cut + 1 s later.
func catchUpMax(packets bool, cut time.Duration) time.Duration {
	election := time.Duration(cluster.DefaultConfig().ElectionMs) * time.Millisecond
	if !packets {
		return election + time.Second
	}
	return cut + time.Second + election + time.Second
}

// Judge turns a minority-partition run into the result (pure).
func (s *minorityPartition) Judge(h *history.History) *report.Result {
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

func okOf(op history.Op) bool { return op.Outcome == history.OK }

func (s *minorityPartition) metrics(mt report.Metrics, m partitionMeasure) {
	ser, lin, put := m.probes[opIsoSerRead], m.probes[opIsoLinRead], m.probes[opIsoPut]
	mt["iso.ser_read.ok"], mt["iso.ser_read.stale"] = report.B2F(okOf(ser)), report.B2F(okOf(ser) && ser.Count == 0)
	mt["iso.lin_read.ok"], mt["iso.put.ok"] = report.B2F(okOf(lin)), report.B2F(okOf(put))
	mt["iso.ser_read.ms"], mt["iso.lin_read.ms"], mt["iso.put.ms"] = report.Ms(ser.Latency()), report.Ms(lin.Latency()), report.Ms(put.Latency())
	mt["maj.put.ok"], mt["maj.keepalive.ok"] = report.B2F(okOf(m.probes[opMajPut])), report.B2F(okOf(m.probes[opMajKeepalive]))
	mt["maj.leader_ms"] = report.Ms(m.leaderAfter)
	mt["healed.caught_up"], mt["healed.catch_up_ms"] = report.B2F(m.caughtUp), report.Ms(m.catchUp)
}

// deadlineBand is the two-sided band around the probe deadline, in ms.
func (s *minorityPartition) deadlineBand() (lo, hi float64) {
	to := report.Ms(s.OpTimeout)
	return to - 100, to + 500
}

// failsAtDeadline is the deadlineBand check.
func (s *minorityPartition) failsAtDeadline(name string) report.Expect {
	lo, hi := s.deadlineBand()
	return report.Band(name, lo, hi, " ms").Digits(0).
		From("no quorum: ReadIndex and proposals wait, so the call fails at the caller's deadline (−100 ms, +500 ms)").
		Says(report.SaysValue("2002 ms (47.3)", 2002).OnlyIf(s.OpTimeout == 2*time.Second)).Apply(scenarios.AgreeDeadline)
}

func (s *minorityPartition) isolatedChecks(m partitionMeasure) []report.Check {
	ser, lin, put := m.probes[opIsoSerRead], m.probes[opIsoLinRead], m.probes[opIsoPut]
	cs := []report.Check{
		report.Yes("isolated: serializable read", "succeeds", "fails").From("served from the member's own store").
			Says(report.SaysYes("succeeds (47.3)")).JudgeBool(okOf(ser)),
		report.AtMost("isolated: serializable read: latency", 50, " ms").Digits(1).From("a local read on loopback").
			Says(report.SaysValue("1 ms (47.3)", 1)).Apply(scenarios.AgreeLocalRead).Judge(report.Ms(ser.Latency())),
	}
	if s.staleJudged(m) {
		cs = append(cs, report.Yes("isolated: serializable read is stale", "stale", "current").
			From("the key written on the majority after the cut never reached the member").
			Says(report.Says("serializable reads serve local, possibly stale data")).JudgeBool(okOf(ser) && ser.Count == 0))
	}
	return append(cs,
		report.No("isolated: linearizable read", "succeeds", "fails").From("ReadIndex needs a quorum").
			Says(report.SaysNo("fails: timeout (47.3)")).JudgeBool(okOf(lin)),
		s.failsAtDeadline("isolated: linearizable read: time to fail").Judge(report.Ms(lin.Latency())),
		report.No("isolated: put", "succeeds", "fails").From("a write needs a leader and a quorum").
			Says(report.SaysNo("fails: timeout (47.3)")).JudgeBool(okOf(put)),
		s.failsAtDeadline("isolated: put: time to fail").Judge(report.Ms(put.Latency())),
	)
}

// catchUpExpect is the band of the time from the mend to the member
// serving the new key.
func catchUpExpect(m partitionMeasure) report.Expect {
	basis := "the leader's next heartbeat (100 ms) brings it back as a follower (PreVote kept its term): ≤ election timeout + 1 s"
	if m.packets {
		cut := m.mend.At - m.cut.At
		basis = fmt.Sprintf("what its peers sent during the %.1f s cut waits in TCP's retransmission back-off (Linux: from 200 ms for data, 1 s for a SYN, doubling): "+
			"the first retransmission after the heal comes within cut + 1 s; then the leader's next heartbeat brings it back (PreVote kept its term): ≤ cut + 1 s + election timeout + 1 s",
			cut.Seconds())
	}
	return report.Band("healed: time until the isolated member serves the new key", 0, report.Ms(catchUpMax(m.packets, m.mend.At-m.cut.At)), " ms").Digits(0).
		From(basis).Says(report.Says("catches up once the partition heals"))
}

func (s *minorityPartition) majorityChecks(m partitionMeasure) []report.Check {
	catchUp := catchUpExpect(m)
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

func word(p history.Op) string {
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
	serWant := "succeeds, stale"
	if !s.staleJudged(m) {
		serWant = "succeeds (stale or not)"
	}
	return report.Table{
		Title:  fmt.Sprintf("%s (%s) cut off from its peers%s, alive and reachable by clients; each probe with a %s deadline", m.iso, s.Isolate, s.cutHow(m), s.OpTimeout),
		Header: []string{"where", "operation", "expected", "measured"},
		Rows: [][]string{
			{"majority", "leader agreed", "yes", fmt.Sprintf("%s, %.0f ms after the cut", m.probes[opMajLeader].Value, report.Ms(m.leaderAfter))},
			{"majority", "put a new key", "succeeds", word(m.probes[opMajPut])},
			{"majority", "renew an instance lease", "succeeds", word(m.probes[opMajKeepalive])},
			{m.iso, "serializable read of the new key", serWant, serText},
			{m.iso, "linearizable read", "fails at the deadline", word(m.probes[opIsoLinRead])},
			{m.iso, "put", "fails at the deadline", word(m.probes[opIsoPut])},
			{m.iso + " after healing", "serves the new key", "yes", caught},
		},
	}
}

// cutHow says how the cut was made, for the table's title.
func (s *minorityPartition) cutHow(m partitionMeasure) string {
	switch {
	case !m.packets:
		return ""
	case s.OneWay:
		return " by dropping every packet it sends to them"
	}
	return " by dropping every packet between them"
}

// concludePackets explains what a cut made of packets changes.
func (s *minorityPartition) concludePackets(res *report.Result, m partitionMeasure) {
	if !m.packets {
		return
	}
	if s.OneWay {
		ser := m.probes[opIsoSerRead]
		res.Conclude(fmt.Sprintf("Only %s's outgoing packets were dropped, but on TCP that is no one-way cut for long: its ACKs are lost, so its peers' connections to it stall after their retransmission timeouts and their heartbeats stop arriving too (measured 1–2.5 s). Until then it may still receive entries, so its serializable read was not judged stale (it %s).",
			m.iso, map[bool]string{true: "was stale", false: "saw the new key"}[okOf(ser) && ser.Count == 0]))
	}
	if m.caughtUp {
		res.Conclude(fmt.Sprintf("The cut was made of dropped packets: %s served the new key %.0f ms after the heal (band up to %.0f ms: TCP's retransmission back-off after a %.1f s cut), where etcd's CutPeer mends at once (within election timeout + 1 s).",
			m.iso, report.Ms(m.catchUp), report.Ms(catchUpMax(true, m.mend.At-m.cut.At)), (m.mend.At - m.cut.At).Seconds()))
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
	s.concludePackets(res, m)
}
