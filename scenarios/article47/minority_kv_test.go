package article47

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
	ms := time.Millisecond
	return history.Op{Caller: linearize.CallerName(member, k), Kind: k, Via: member, Target: key, Value: value, Scheduled: time.Duration(from) * ms,
		Start: time.Duration(from) * ms, End: time.Duration(to) * ms, Outcome: o, Paced: member != linearize.Final}
}

// minorityKV is the key-value traffic of a minority run (n2, n3 killed
// from 2 s to 10 s, n1 survives): puts before the kill, every op on the
// survivor and the dead members timing out during the outage, a put
// after the restart, and the reads at the end (finalA for /kv/a).
func minorityKV(finalA string) []history.Op {
	return []history.Op{
		kvOp("n1", linearize.Put, "/kv/a", "n1-0", 0, 4, history.OK), kvOp("n2", linearize.Get, "/kv/a", "n1-0", 100, 103, history.OK),
		kvOp("n3", linearize.Put, "/kv/a", "n3-3", 1000, 1004, history.OK),
		kvOp("n1", linearize.Put, "/kv/a", "n1-9", 3000, 5000, history.Unknown), kvOp("n1", linearize.Get, "/kv/a", "", 3300, 5300, history.Unknown),
		kvOp("n1", linearize.SerGet, "/kv/a", "n3-3", 3600, 3601, history.OK), kvOp("n2", linearize.Put, "/kv/b", "n2-9", 3100, 5100, history.Unknown),
		kvOp("n2", linearize.Put, "/kv/b", "n2-36", 11000, 11005, history.OK),
		kvOp(linearize.Final, linearize.Get, "/kv/a", finalA, 12100, 12102, history.OK), kvOp(linearize.Final, linearize.Get, "/kv/b", "n2-36", 12100, 12102, history.OK),
	}
}

func TestMinorityJudgeKV(t *testing.T) {
	s := scentest.MustConfigure(t, "minority").(*minority)
	const lin, lost = "linearizable: puts + linearizable gets (porcupine)", "acknowledged puts lost after healing"
	tests := []struct {
		name    string
		kv      []history.Op
		verdict report.Verdict
		check   string
	}{
		{"linearizable, nothing lost", minorityKV("n3-3"), report.Reproduced, lost},
		{"a put on the survivor that timed out may have been applied", minorityKV("n1-9"), report.Reproduced, lin},
		// Must fail: the restarted members lost an acknowledged put; the key vanished.
		{"an acknowledged put lost after the restart", minorityKV("n1-0"), report.Outside, lost},
		{"the key vanished after the restart", minorityKV(""), report.Outside, lin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := minorityHistory(history.Unknown, 19)
			h.Ops = append(h.Ops, tc.kv...)
			res := scentest.Judge(s, h)
			if v := scentest.Verdict(res, tc.check); v != tc.verdict {
				t.Errorf("check %q: %s, want %s (%s)", tc.check, v, tc.verdict, scentest.Names(res))
			}
			if v := scentest.Verdict(res, linearize.StaleCheckName); v != "" {
				t.Errorf("the survivor's stale read is judged (%s), want it reported only", v)
			}
		})
	}
}
