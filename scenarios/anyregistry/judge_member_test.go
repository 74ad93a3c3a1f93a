package anyregistry

import (
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/worlds/etcd"
	"sdchaos/worlds/eureka/eurekareal"
)

// worldRun is a synthetic run judged by one world's rules.
type worldRun struct {
	synth
	reg experiment.Registry
	// answers says whether member answers op (list or register) at a probe.
	answers func(member, op string) bool
}

// builtinOn is the built-in name with its real clients expanded for reg.
func builtinOn(t *testing.T, reg experiment.Registry, name string) experiment.Experiment {
	t.Helper()
	r, err := rig.RegistryFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range Builtins() {
		if x.Name == name {
			return rig.ExpandClients(r, x)
		}
	}
	t.Fatalf("no built-in %s", name)
	return experiment.Experiment{}
}

// memberRun is quorum-loss or member-cut-off on reg: the fault holds from
// 3 s to 21 s on targets, the probes fire at 8 s and 15 s and ask n1–n3.
func memberRun(t *testing.T, reg experiment.Registry, name string, targets ...string) worldRun {
	events := history.Events{{At: 3 * time.Second, Phase: history.Inject, Origin: 1, Targets: targets},
		{At: 21 * time.Second, Phase: history.Heal, Origin: 1, Targets: targets},
		{At: 8 * time.Second, Kind: history.Probe, Phase: history.Inject, Origin: 2},
		{At: 15 * time.Second, Kind: history.Probe, Phase: history.Inject, Origin: 3}}
	return worldRun{reg: reg, synth: synth{x: builtinOn(t, reg, name), events: events, listed: func(time.Duration) int { return 3 }},
		answers: func(string, string) bool { return true }}
}

// judgeWorld judges w by its world's rules, probes included.
func judgeWorld(t *testing.T, w worldRun) *report.Result {
	t.Helper()
	reg, err := rig.RegistryFor(w.reg)
	if err != nil {
		t.Fatal(err)
	}
	h := w.history()
	for _, at := range probeTimes(w) {
		for _, m := range []string{"n1", "n2", "n3"} {
			h.Ops = append(h.Ops, synthProbeOps(w, at, m)...)
		}
	}
	res := judge(reg, w.x, h)
	res.Finish()
	return res
}

// probeTimes are when the probes of a member run fire (none without answers).
func probeTimes(w worldRun) []time.Duration {
	if w.answers == nil {
		return nil
	}
	return []time.Duration{8 * time.Second, 15 * time.Second}
}

// synthProbeOps are member m's answers to the probe at at.
func synthProbeOps(w worldRun, at time.Duration, m string) []history.Op {
	var ops []history.Op
	for _, op := range []string{"list", "register"} {
		o := history.Op{Caller: "probe/" + m + "/" + op, Kind: history.OpProbe, Via: m, Target: op,
			Scheduled: at, Start: at + 10*time.Millisecond, End: at + 20*time.Millisecond, Outcome: history.OK}
		if !w.answers(m, op) {
			o.Outcome, o.Err = history.Fail, "context deadline exceeded"
		}
		ops = append(ops, o)
	}
	return ops
}

// failing makes name fail on every call in [from, to).
func failing(name string, from, to time.Duration) func(string, time.Duration) bool {
	return func(c string, at time.Duration) bool { return c == name && at >= from && at < to }
}

// memberCase is one departure from a world's rules, and the check it must
// put outside.
type memberCase struct {
	name  string
	edit  func(*worldRun)
	check string
}

// testMembers checks that the rules' own run reproduces and every case
// puts its check outside.
func testMembers(t *testing.T, base func() worldRun, cases []memberCase) {
	t.Helper()
	if res := judgeWorld(t, base()); res.Verdict != report.Reproduced {
		t.Fatalf("the rules' own run: %s", verdicts(res))
	}
	for _, tc := range cases {
		w := base()
		tc.edit(&w)
		res := judgeWorld(t, w)
		if v := verdictOf(res, tc.check); v != report.Outside {
			t.Errorf("%s: %q is %s, want outside (%s)", tc.name, tc.check, v, verdicts(res))
		}
	}
}

// TestQuorumLossOnEtcd: the survivor (n3) serves neither list nor
// register; keep and the resolver's clients fail nothing; clear fails from
// its first refresh at its deadline until its first refresh after the
// members are back.
func TestQuorumLossOnEtcd(t *testing.T) {
	base := func() worldRun {
		w := memberRun(t, etcdName, "quorum-loss", "n1", "n2")
		w.answers = func(m, _ string) bool { return m != "n3" }
		w.fail = failing("clear", 4400*time.Millisecond, 21500*time.Millisecond)
		return w
	}
	testMembers(t, base, []memberCase{
		{"the survivor serves a read alone", func(w *worldRun) { w.answers = func(string, string) bool { return true } },
			"n3 (survivor) at 8 s: list answers"},
		{"keep fails", func(w *worldRun) { w.fail = failing("keep", 10*time.Second, 11*time.Second) },
			"keep: failures while the registry was unreachable"},
		{"clear never fails", func(w *worldRun) { w.fail = nil }, "clear: first failure after the registry became unreachable"},
		{"the resolver's client fails", func(w *worldRun) { w.fail = failing(etcd.EtcdPickFirst, 9*time.Second, 10*time.Second) },
			etcd.EtcdPickFirst + ": failed share while the registry was unreachable"},
	})
}

// TestMemberCutOffOnEtcd: the cut-off member (n2) serves neither, the
// majority both; keep and the resolver's clients fail nothing.
func TestMemberCutOffOnEtcd(t *testing.T) {
	base := func() worldRun {
		w := memberRun(t, etcdName, "member-cut-off", "n2")
		w.answers = func(m, _ string) bool { return m != "n2" }
		return w
	}
	testMembers(t, base, []memberCase{
		{"the cut-off member serves a stale read", func(w *worldRun) { w.answers = func(string, string) bool { return true } },
			"n2 (cut-off) at 8 s: list answers"},
		{"the majority refuses a registration", func(w *worldRun) { w.answers = func(m, op string) bool { return m != "n2" && op != "register" } },
			"n1 (majority) at 15 s: register answers"},
		{"keep fails", func(w *worldRun) { w.fail = failing("keep", 10*time.Second, 11*time.Second) },
			"keep: failures while cut-off-member held"},
		{"the resolver's client fails", func(w *worldRun) { w.fail = failing(etcd.EtcdRoundRobin, 9*time.Second, 10*time.Second) },
			etcd.EtcdRoundRobin + ": failed share while cut-off-member held"},
		{"clear never recovers", func(w *worldRun) { w.fail = failing("clear", 10*time.Second, 30*time.Second) },
			"clear: failures after cut-off-member healed (from 2s after)"},
	})
}

// TestQuorumLossOnEureka: the survivor serves both alone (no quorum);
// every caller fails nothing, reads failing over to it.
func TestQuorumLossOnEureka(t *testing.T) {
	base := func() worldRun { return memberRun(t, eurekaName, "quorum-loss", "n1", "n2") }
	testMembers(t, base, []memberCase{
		{"the survivor refuses a registration", func(w *worldRun) { w.answers = func(_, op string) bool { return op != "register" } },
			"n3 (survivor) at 8 s: register answers"},
		{"clear fails", func(w *worldRun) { w.fail = failing("clear", 4400*time.Millisecond, 21500*time.Millisecond) },
			"clear: failures while quorum-loss held"},
		{"the Java client fails", func(w *worldRun) { w.fail = failing(eurekareal.JavaClient, 9*time.Second, 10*time.Second) },
			eurekareal.JavaClient + ": failures while quorum-loss held"},
	})
}

// TestMemberCutOffOnEureka: every server serves both; no caller fails.
func TestMemberCutOffOnEureka(t *testing.T) {
	base := func() worldRun { return memberRun(t, eurekaName, "member-cut-off", "n2") }
	testMembers(t, base, []memberCase{
		{"the cut-off server refuses a read", func(w *worldRun) { w.answers = func(m, op string) bool { return m != "n2" || op != "list" } },
			"n2 (cut-off) at 8 s: list answers"},
		{"clear fails", func(w *worldRun) { w.fail = failing("clear", 10*time.Second, 11*time.Second) },
			"clear: failures while cut-off-member held"},
		{"clear never recovers", func(w *worldRun) { w.fail = failing("clear", 10*time.Second, 30*time.Second) },
			"clear: failures after cut-off-member healed (from 2s after)"},
	})
}
