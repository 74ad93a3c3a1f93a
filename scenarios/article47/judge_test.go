package article47

import (
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

func mkHistory(ops []history.Op, d time.Duration, evs ...history.Event) *history.History {
	return &history.History{Ops: ops, Events: evs, Timeline: d}
}

var killAll = history.Event{At: 2 * time.Second, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n1", "n2", "n3"}, Label: "SIGKILL etcd n1,n2,n3"}

// firstFail is cache-on-failure's headline check.
const firstFail = "clear: first failure after the outage"

func TestCacheOnFailureJudge(t *testing.T) {
	grpc := scentest.MustConfigure(t, "cache-on-failure")
	fast := scentest.MustConfigure(t, "cache-on-failure", "--refresh-fail-fast")
	clearFrom := func(from time.Duration) func(string, time.Duration) bool {
		return func(c string, at time.Duration) bool { return c == "clear" && at >= from }
	}
	tests := []struct {
		name    string
		judge   *cacheOnFailure
		fail    func(c string, at time.Duration) bool
		verdict report.Verdict
		// check is the check the case is about (each must-fail case names
		// the one that must break, so no other check can make it pass).
		check string
	}{
		{"gRPC: clear fails at its next refresh + deadline", grpc.(*cacheOnFailure), clearFrom(3 * time.Second), report.Differs, firstFail},
		{"fail-fast: clear fails within 1/40 s, as the article", fast.(*cacheOnFailure), clearFrom(2025 * time.Millisecond), report.Reproduced, firstFail},
		{"gRPC: a failure before a refresh can have failed is impossible", grpc.(*cacheOnFailure), clearFrom(2100 * time.Millisecond), report.Outside, firstFail},
		// Must fail: the article's effect absent.
		{"clear never fails", grpc.(*cacheOnFailure), func(string, time.Duration) bool { return false }, report.Outside, firstFail},
		{"clear fails too late", grpc.(*cacheOnFailure), clearFrom(3700 * time.Millisecond), report.Outside, firstFail},
		{"clear recovers", grpc.(*cacheOnFailure), func(c string, at time.Duration) bool {
			return c == "clear" && at >= 3*time.Second && at < 6*time.Second
		}, report.Outside, "clear: successes after its first failure"},
		{"keep loses one request", grpc.(*cacheOnFailure), func(c string, at time.Duration) bool {
			return (c == "clear" && at >= 3*time.Second) || (c == "keep" && at == 5*time.Second)
		}, report.Outside, "keep: seconds not all ok"},
		{"the real client loses every call after the outage", grpc.(*cacheOnFailure), func(c string, at time.Duration) bool {
			return (c == "clear" || c == scenarios.RealRoundRobin) && at >= 3*time.Second
		}, report.Outside, scenarios.RealRoundRobin + ": seconds not all ok"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops := scentest.Synth([]string{"keep", "clear", scenarios.RealRoundRobin, scenarios.RealPickFirst}, 40, 10*time.Second, tc.fail)
			res := scentest.Judge(tc.judge, mkHistory(ops, 10*time.Second, killAll))
			if res.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s: %s", res.Verdict, tc.verdict, scentest.Names(res))
			}
			if v := scentest.Verdict(res, tc.check); v != tc.verdict {
				t.Errorf("check %q: %s, want %s", tc.check, v, tc.verdict)
			}
			scentest.NoUnexplainedDifference(t, res)
		})
	}
	res := scentest.Judge(grpc, mkHistory(nil, 10*time.Second))
	if res.Verdict != report.Invalid {
		t.Errorf("a run without the outage: verdict %s, want invalid", res.Verdict)
	}
}

func TestPassiveEjectionJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "passive-ejection").(*passiveEjection)
	outage := history.Event{At: time.Second, Kind: history.KillMembers, Phase: history.Inject}
	crash := history.Event{At: 4 * time.Second, Kind: history.CrashInstance, Phase: history.Inject, Targets: []string{"j2"}}
	third := func(at time.Duration) bool { return at >= 4*time.Second && int(at/(25*time.Millisecond))%3 == 1 }
	tests := []struct {
		name    string
		fail    func(c string, at time.Duration) bool
		verdict report.Verdict
		check   string
	}{
		{"article shape", func(c string, at time.Duration) bool {
			return (c == "none" && third(at)) || (c == "eject" && at == 4*time.Second+25*time.Millisecond)
		}, report.Reproduced, "eject: failed requests in total"},
		// Must fail: no ejection effect, wrong share, no failure at all.
		{"eject fails like none", func(c string, at time.Duration) bool { return third(at) }, report.Outside, "eject: failed requests in total"},
		{"none fails half", func(c string, at time.Duration) bool {
			return c == "none" && at >= 4*time.Second && int(at/(25*time.Millisecond))%2 == 0
		}, report.Outside, "none: most failures in a whole second after the crash"},
		{"the crash changes nothing", func(string, time.Duration) bool { return false }, report.Outside, "none: failed requests in total"},
		{"the real client keeps calling the dead instance", func(c string, at time.Duration) bool {
			return ((c == "none" || c == scenarios.RealRoundRobin) && third(at)) || (c == "eject" && at == 4*time.Second+25*time.Millisecond)
		}, report.Outside, scenarios.RealRoundRobin + ": failures after the crash"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops := scentest.Synth([]string{"none", "eject", scenarios.RealRoundRobin, scenarios.RealPickFirst}, 40, 10*time.Second, tc.fail)
			res := scentest.Judge(s, mkHistory(ops, 10*time.Second, outage, crash))
			if res.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s: %s", res.Verdict, tc.verdict, scentest.Names(res))
			}
			if v := scentest.Verdict(res, tc.check); v != tc.verdict {
				t.Errorf("check %q: %s, want %s", tc.check, v, tc.verdict)
			}
		})
	}
}

// minorityHistory is a minority run as the article saw it: each probe fails
// at the 2 s deadline but the serializable read, keys present and TTLs reset.
func minorityHistory(lin history.Outcome, ttl int) *history.History {
	kill := history.Event{At: 2 * time.Second, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n2", "n3"}}
	heal := history.Event{At: 10 * time.Second, Kind: history.KillMembers, Phase: history.Heal, Targets: []string{"n2", "n3"}}
	at := 3 * time.Second
	op := func(name string, d time.Duration, o history.Outcome, n int) history.Op {
		return history.Op{Caller: name, Target: "n1", Scheduled: at, Start: at, End: at + d, Outcome: o, Count: n}
	}
	linD := 2002 * time.Millisecond
	if lin == history.OK {
		linD = 3 * time.Millisecond
	}
	ops := []history.Op{
		{Caller: opLeaderless, Target: "n1", Start: 2 * time.Second, End: at, Outcome: history.OK},
		op(opLinRead, linD, lin, 3), op(opSerRead, time.Millisecond, history.OK, 3),
		op(opPut, 2002*time.Millisecond, history.Unknown, 0), op(opKeepalive, 2003*time.Millisecond, history.Fail, 0),
		{Caller: opLeader, Start: 10 * time.Second, End: 10800 * time.Millisecond, Outcome: history.OK},
		{Caller: opKeys, Start: 10800 * time.Millisecond, End: 10810 * time.Millisecond, Outcome: history.OK, Count: 3},
	}
	for range 3 {
		ops = append(ops, history.Op{Caller: opTTL, Start: 10810 * time.Millisecond, End: 10820 * time.Millisecond, Outcome: history.OK, Count: ttl})
	}
	return mkHistory(ops, 12*time.Second, kill, heal)
}

func TestMinorityJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "minority").(*minority)
	tests := []struct {
		name    string
		h       *history.History
		verdict report.Verdict
		check   string
	}{
		{"article", minorityHistory(history.Unknown, 19), report.Differs, "serializable read: instance keys seen"},
		// Must fail: a linearizable read that succeeds without quorum; leases not reset.
		{"linearizable read succeeded", minorityHistory(history.OK, 19), report.Outside, "linearizable read on the survivor"},
		{"leases kept their old expiry", minorityHistory(history.Unknown, 11), report.Outside, "lowest remaining lease TTL after recovery"},
		{"leases mass-expired and re-granted short", minorityHistory(history.Unknown, 3), report.Outside, "highest remaining lease TTL after recovery"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := scentest.Judge(s, tc.h)
			if res.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s: %s", res.Verdict, tc.verdict, scentest.Names(res))
			}
			if v := scentest.Verdict(res, tc.check); v != tc.verdict {
				t.Errorf("check %q: %s, want %s", tc.check, v, tc.verdict)
			}
			scentest.NoUnexplainedDifference(t, res)
		})
	}
	short := scentest.MustConfigure(t, "minority", "--outage", "1500ms", "--op-timeout", "1s").(*minority)
	res := scentest.Judge(short, minorityHistory(history.Unknown, 19))
	if v := scentest.Verdict(res, "lowest remaining lease TTL after recovery"); v != report.Invalid {
		t.Errorf("a 1.5 s outage cannot tell a reset lease from a kept one: verdict %s, want invalid", v)
	}
}
