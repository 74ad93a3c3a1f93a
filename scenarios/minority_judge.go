package scenarios

import (
	"fmt"
	"strings"

	"sdchaos/report"
)

// judge turns a minority run into the result (pure).
func (s *minority) judge(o *minorityRun) *report.Result {
	res := report.NewResult("")
	res.Marks, res.TimelineSeconds = o.marks, o.timeline.Seconds()
	m := res.Metrics
	for name, p := range map[string]probe{"lin_read": o.lin, "ser_read": o.ser, "put": o.put, "keepalive": o.keepalive} {
		m[name+".ok"], m[name+".ms"] = report.B2F(p.ok), p.ms
	}
	m["ser_read.keys"] = float64(o.ser.keys)
	m["survivor.leaderless_ms"] = o.leaderlessMs
	m["after.present"] = float64(o.present)
	m["after.leader_ms"] = o.leaderMs
	m["end.present"] = float64(o.endPresent)
	lo, hi := report.MinMax(o.ttls)
	m["after.ttl_min_s"], m["after.ttl_max_s"] = lo, hi
	to := report.Ms(s.OpTimeout)
	ttl := s.svc.TTL.Seconds()
	res.AddTable(s.table(o))
	res.AddCheck(
		report.Bool("linearizable read on the survivor", "fails (timeout)", o.lin.ok, false, "succeeds", "fails"),
		report.Between("linearizable read: time to fail", "2002 ms", o.lin.ms, to-100, to+500, " ms"),
		report.Bool("serializable read on the survivor", "succeeds", o.ser.ok, true, "succeeds", "fails"),
		report.AtMost("serializable read: latency", "1 ms", o.ser.ms, 50, " ms"),
		report.Equal("serializable read: instance keys seen", "3 (+3 left from earlier runs)", float64(o.ser.keys), float64(o.expected), ""),
		report.Bool("put on the survivor", "fails (timeout)", o.put.ok, false, "succeeds", "fails"),
		report.AtMost("put: time to fail", "2002 ms", o.put.ms, to+500, " ms"),
		report.Bool("lease keepalive on the survivor", "fails (timeout)", o.keepalive.ok, false, "succeeds", "fails"),
		report.AtMost("keepalive: time to fail", "2003 ms", o.keepalive.ms, to+500, " ms"),
		report.Equal("instance keys present after recovery", "3 / 3", float64(o.present), float64(o.expected), ""),
		report.Between("lowest remaining lease TTL after recovery", "18 s", lo, ttl-5, ttl+1, " s"),
		report.Between("highest remaining lease TTL after recovery", "19 s", hi, ttl-5, ttl+1, " s"),
	)
	s.conclude(res, o)
	return res
}

func (s *minority) table(o *minorityRun) report.Table {
	row := func(op, article string, p probe, extra string) []string {
		got := "succeeds"
		if !p.ok {
			got = "fails: " + shortErr(p.err)
		}
		return []string{op, article, fmt.Sprintf("%s (%.0f ms)%s", got, p.ms, extra)}
	}
	t := report.Table{Title: fmt.Sprintf("On the survivor %s, each with a %s deadline (article 47.3)", o.survivor, s.OpTimeout),
		Header: []string{"operation", "article", "measured"}}
	t.Rows = [][]string{
		{"survivor reports no leader", "—", fmt.Sprintf("%.0f ms after the kill", o.leaderlessMs)},
		row("linearizable read (default)", "fails: timeout (2002 ms)", o.lin, ""),
		row("serializable read (local)", "succeeds (1 ms), sees the /svc/ keys (6: 3 + 3 left over)", o.ser, fmt.Sprintf(", sees %d keys", o.ser.keys)),
		row("write", "fails: timeout (2002 ms)", o.put, ""),
		row("lease keepalive", "fails: timeout (2003 ms)", o.keepalive, ""),
		{"instances present after the majority returns", "3 / 3", fmt.Sprintf("%d / %d (leader %.0f ms after the restart)", o.present, o.expected, o.leaderMs)},
		{"remaining TTL of each lease after recovery", "19, 18, 18 s", joinFloats(o.ttls) + " s"},
		{"instances present at the end of the timeline", "—", fmt.Sprintf("%d / %d", o.endPresent, o.expected)},
	}
	return t
}

func (s *minority) conclude(res *report.Result, o *minorityRun) {
	avail := []string{}
	for name, p := range map[string]probe{"linearizable reads": o.lin, "writes": o.put, "keepalives": o.keepalive} {
		if !p.ok {
			avail = append(avail, name)
		}
	}
	if len(avail) > 0 {
		res.Conclude(fmt.Sprintf("With only %s left, %s failed on it (no quorum, no leader).", o.survivor, strings.Join(sorted(avail), ", ")))
	}
	if o.ser.ok {
		res.Conclude(fmt.Sprintf("Serializable reads still served local data in %.1f ms (%d keys): a client that reads serializably keeps discovering instances, possibly stale ones.", o.ser.ms, o.ser.keys))
	}
	lo, hi := report.MinMax(o.ttls)
	res.Conclude(fmt.Sprintf("After %s of outage and a new leader, %d of %d instance keys were still there with %g–%g s left on their leases (ttl %s): leases were not mass-expired but reset by the new leader.",
		s.Outage, o.present, o.expected, lo, hi, s.svc.TTL))
}

func shortErr(e string) string {
	if i := strings.LastIndex(e, ": "); i >= 0 && len(e) > 60 {
		return e[i+2:]
	}
	return e
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = report.Num(x)
	}
	return strings.Join(parts, ", ")
}
