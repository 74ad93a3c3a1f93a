package nacosarticle

import (
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/linearize"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// jitterKV is the key-value traffic of a registry-jitter run: puts and
// reads before the blackhole (2 s), ops timing out during it, a put held
// by the blackhole whose value is read after the heal (20 s), the reads at
// the end (finalB for /kv/b), and afterRead: what n3's linearizable get of
// /kv/b after the heal returned.
func jitterKV(afterRead, finalB string) []history.Op {
	return []history.Op{
		kvOp("n1", linearize.Put, "/kv/a", "n1-0", 0, 4, history.OK), kvOp("n2", linearize.Put, "/kv/b", "n2-0", 100, 104, history.OK),
		kvOp("n3", linearize.Get, "/kv/a", "n1-0", 200, 203, history.OK), kvOp("n1", linearize.SerGet, "/kv/b", "n2-0", 300, 301, history.OK),
		kvOp("n2", linearize.Put, "/kv/b", "n2-9", 5000, 6000, history.Unknown), kvOp("n3", linearize.Get, "/kv/a", "", 5100, 6100, history.Unknown),
		kvOp("n1", linearize.Put, "/kv/b", "n1-63", 21000, 21004, history.OK), kvOp("n3", linearize.Get, "/kv/b", afterRead, 21100, 21103, history.OK),
		kvOp(linearize.Final, linearize.Get, "/kv/a", "n1-0", 27100, 27102, history.OK), kvOp(linearize.Final, linearize.Get, "/kv/b", finalB, 27100, 27102, history.OK),
	}
}

func TestRegistryJitterJudgeKV(t *testing.T) {
	s := scentest.MustConfigure(t, "registry-jitter").(*registryJitter)
	start, end := ev(2*time.Second, history.BlackholeLinks, history.Inject), ev(20*time.Second, history.BlackholeLinks, history.Heal)
	const d = 27 * time.Second
	naive := func(c string, at time.Duration) bool {
		return c == "naive" && at >= 3*time.Second && at < 20*time.Second
	}
	const lin, lost = "linearizable: puts + linearizable gets (porcupine)", "acknowledged puts lost after healing"
	tests := []struct {
		name    string
		kv      []history.Op
		verdict report.Verdict
		check   string
	}{
		{"linearizable, nothing lost", jitterKV("n1-63", "n1-63"), report.Reproduced, lin},
		{"a put held by the blackhole and applied after the heal is no violation", jitterKV("n1-63", "n2-9"), report.Reproduced, lost},
		// Must fail: a stale linearizable read after the heal, an acknowledged put lost.
		{"a stale linearizable read after the heal", jitterKV("n2-0", "n1-63"), report.Outside, lin},
		{"an acknowledged put lost", jitterKV("n1-63", "n2-0"), report.Outside, lost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := scentest.Judge(s, mkHistory(append(jitterOps(d, naive, nil, 1, 1, 1), tc.kv...), d, start, end))
			if v := scentest.Verdict(res, tc.check); v != tc.verdict {
				t.Errorf("check %q: %s, want %s (%s)", tc.check, v, tc.verdict, scentest.Names(res))
			}
		})
	}
}
