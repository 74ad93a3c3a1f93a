package nacosarticle

import (
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/linearize"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// kvOp is a recorded key-value op of member, [from, to] in ms.
func kvOp(member string, k linearize.Kind, key, value string, from, to int, o history.Outcome) history.Op {
	return history.Op{Caller: linearize.CallerName(member, k), Kind: k, Via: member, Target: key, Value: value, Scheduled: time.Duration(from) * ms,
		Start: time.Duration(from) * ms, End: time.Duration(to) * ms, Outcome: o, Paced: member != linearize.Final}
}

// partitionKV is the key-value traffic of a minority-partition run as
// etcd's rules predict it with n1 cut off from 2 s to 8 s (the majority's
// leader probe starts at 2 s): a put on the majority after the cut, n1's
// serializable get returning the value from before it (isoRead), n1's
// linearizable get and put timing out, and the reads after healing
// (finalA for /kv/a).
func partitionKV(isoRead, finalA string, linRead history.Op) []history.Op {
	return []history.Op{
		kvOp("n2", linearize.Put, "/kv/a", "n2-0", 100, 105, history.OK), kvOp("n3", linearize.Get, "/kv/a", "n2-0", 200, 203, history.OK),
		kvOp("n1", linearize.SerGet, "/kv/a", "n2-0", 300, 301, history.OK),
		kvOp("n2", linearize.Put, "/kv/a", "n2-3", 3300, 3310, history.OK), kvOp("n3", linearize.Put, "/kv/b", "n3-3", 3400, 3410, history.OK),
		kvOp("n1", linearize.SerGet, "/kv/a", isoRead, 4000, 4001, history.OK), linRead,
		kvOp("n1", linearize.Put, "/kv/b", "n1-5", 4100, 6101, history.Unknown),
		kvOp(linearize.Final, linearize.Get, "/kv/a", finalA, 8300, 8302, history.OK), kvOp(linearize.Final, linearize.Get, "/kv/b", "n3-3", 8300, 8302, history.OK),
	}
}

var isoLinTimesOut = kvOp("n1", linearize.Get, "/kv/a", "", 4000, 6001, history.Unknown)

func TestMinorityPartitionJudgeKV(t *testing.T) {
	s := scentest.MustConfigure(t, "minority-partition").(*minorityPartition)
	oneWay := scentest.MustConfigure(t, "minority-partition", "--one-way").(*minorityPartition)
	const lin, lost = "linearizable: puts + linearizable gets (porcupine)", "acknowledged puts lost after healing"
	tests := []struct {
		name    string
		s       *minorityPartition
		kv      []history.Op
		verdict report.Verdict
		check   string
	}{
		{"etcd's rules: linearizable, a stale serializable read, nothing lost", s, partitionKV("n2-0", "n2-3", isoLinTimesOut), report.Reproduced, linearize.StaleCheckName},
		// Must fail: a current serializable read on the cut-off member, a stale linearizable read, a lost acknowledged put.
		{"the cut-off member's serializable read is current", s, partitionKV("n2-3", "n2-3", isoLinTimesOut), report.Outside, linearize.StaleCheckName},
		{"a stale linearizable read on the cut-off member", s, partitionKV("n2-0", "n2-3", kvOp("n1", linearize.Get, "/kv/a", "n2-0", 4000, 4003, history.OK)),
			report.Outside, lin},
		{"an acknowledged put lost after healing", s, partitionKV("n2-0", "n2-0", isoLinTimesOut), report.Outside, lost},
		{"no serializable read after a put made after the cut", s, partitionKV("n2-0", "n2-3", isoLinTimesOut)[:4], report.Invalid, linearize.StaleCheckName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := partitionHistory(history.Unknown, 2002*ms, 0)
			h.Ops = append(h.Ops, tc.kv...)
			res := scentest.Judge(tc.s, h)
			if v := scentest.Verdict(res, tc.check); v != tc.verdict {
				t.Errorf("check %q: %s, want %s (%s)", tc.check, v, tc.verdict, scentest.Names(res))
			}
			if tc.verdict == report.Reproduced && (res.Verdict != report.Reproduced || len(res.Files["history.html"]) == 0) {
				t.Errorf("verdict %s, files %v: want reproduced with the visualisation", res.Verdict, res.FileNames)
			}
		})
	}
	res := scentest.Judge(oneWay, func() *history.History {
		h := partitionHistory(history.Unknown, 2002*ms, 0)
		h.Ops = append(h.Ops, partitionKV("n2-3", "n2-3", isoLinTimesOut)...)
		return h
	}())
	if v := scentest.Verdict(res, linearize.StaleCheckName); v != "" {
		t.Errorf("--one-way: the stale read is judged (%s), want it reported only", v)
	}
	if v := scentest.Verdict(scentest.Judge(s, partitionHistory(history.Unknown, 2002*ms, 0)), lin); v != "" {
		t.Errorf("a history without key-value traffic got a linearizability check (%s)", v)
	}
}
