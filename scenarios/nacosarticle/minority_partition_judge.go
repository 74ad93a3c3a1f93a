//go:build sdchaos_unconverted

package scenarios

import (
	"fmt"

	"sdchaos/report"
)

// judge turns a minority-partition run into the result (pure).
func (s *minorityPartition) judge(o *partitionRun) *report.Result {
	res := report.NewResult("")
	res.Marks, res.TimelineSeconds = o.marks, o.timeline.Seconds()
	m := res.Metrics
	m["iso.ser_read.ok"], m["iso.ser_read.stale"] = report.B2F(o.isoSer.ok), report.B2F(o.isoSerStale)
	m["iso.lin_read.ok"], m["iso.put.ok"] = report.B2F(o.isoLin.ok), report.B2F(o.isoPut.ok)
	m["iso.lin_read.ms"], m["iso.put.ms"], m["iso.ser_read.ms"] = o.isoLin.ms, o.isoPut.ms, o.isoSer.ms
	m["maj.put.ok"], m["maj.keepalive.ok"] = report.B2F(o.majPut.ok), report.B2F(o.majKeepalive.ok)
	m["maj.leader_ms"] = o.leaderMs
	m["healed.caught_up"], m["healed.catch_up_ms"] = report.B2F(o.caughtUp), o.catchUpMs
	to := report.Ms(s.OpTimeout)
	res.AddTable(s.table(o))
	res.AddCheck(
		report.Bool("isolated: serializable read", "succeeds", o.isoSer.ok, true, "succeeds", "fails"),
		report.Bool("isolated: serializable read is stale", "the majority's new key is missing", o.isoSerStale, true, "stale", "current"),
		report.Bool("isolated: linearizable read", "fails", o.isoLin.ok, false, "succeeds", "fails"),
		report.AtMost("isolated: linearizable read fails within its deadline", "≈ deadline", o.isoLin.ms, to+500, " ms"),
		report.Bool("isolated: put", "fails", o.isoPut.ok, false, "succeeds", "fails"),
		report.AtMost("isolated: put fails within its deadline", "≈ deadline", o.isoPut.ms, to+500, " ms"),
		report.Bool("majority: put", "succeeds", o.majPut.ok, true, "succeeds", "fails"),
		report.Bool("majority: instance keepalive", "succeeds", o.majKeepalive.ok, true, "succeeds", "fails"),
		report.Bool("healed: isolated member serves the new key", "catches up", o.caughtUp, true, "caught up", "still stale"),
	)
	s.conclude(res, o)
	return res
}

func (s *minorityPartition) table(o *partitionRun) report.Table {
	word := func(p probe) string {
		if p.ok {
			return fmt.Sprintf("succeeds (%.0f ms)", p.ms)
		}
		return fmt.Sprintf("fails: %s (%.0f ms)", shortErr(p.err), p.ms)
	}
	ser := word(o.isoSer)
	if o.isoSer.ok {
		ser += map[bool]string{true: ", stale: new key missing", false: ", sees the new key"}[o.isoSerStale]
	}
	caught := fmt.Sprintf("no, still stale after %.0f ms", o.catchUpMs)
	if o.caughtUp {
		caught = fmt.Sprintf("yes, %.0f ms after healing", o.catchUpMs)
	}
	return report.Table{
		Title:  fmt.Sprintf("%s (%s) cut off from its peers, alive and reachable by clients; each probe with a %s deadline", o.iso, s.Isolate, s.OpTimeout),
		Header: []string{"where", "operation", "expected", "measured"},
		Rows: [][]string{
			{"majority", "leader elected", "yes", fmt.Sprintf("after %.0f ms", o.leaderMs)},
			{"majority", "put a new key", "succeeds", word(o.majPut)},
			{"majority", "renew an instance lease", "succeeds", word(o.majKeepalive)},
			{o.iso, "serializable read of the new key", "succeeds, stale", ser},
			{o.iso, "linearizable read", "fails", word(o.isoLin)},
			{o.iso, "put", "fails", word(o.isoPut)},
			{o.iso + " after healing", "serves the new key", "yes", caught},
		},
	}
}

func (s *minorityPartition) conclude(res *report.Result, o *partitionRun) {
	if o.isoSer.ok && o.isoSerStale {
		res.Conclude(fmt.Sprintf("A client reading serializably from %s kept getting answers, but stale ones: the key written on the majority was missing.", o.iso))
	}
	if !o.isoLin.ok && !o.isoPut.ok {
		res.Conclude(fmt.Sprintf("Linearizable reads and writes on %s failed within their deadline (%.0f and %.0f ms): a client pinned to it sees errors, not wrong data.", o.iso, o.isoLin.ms, o.isoPut.ms))
	}
	if o.majPut.ok && o.majKeepalive.ok {
		res.Conclude(fmt.Sprintf("The majority had a leader %.0f ms after the partition and kept accepting writes and lease renewals.", o.leaderMs))
	}
	if o.caughtUp {
		res.Conclude(fmt.Sprintf("After healing, %s caught up in %.0f ms.", o.iso, o.catchUpMs))
	} else {
		res.Conclude(fmt.Sprintf("After healing, %s had not caught up within %.0f ms.", o.iso, o.catchUpMs))
	}
}
