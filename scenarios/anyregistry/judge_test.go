package anyregistry

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sdchaos/caller"
	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/worlds/etcd"
)

// synth builds the history of a registry-neutral run on etcd's rules:
// every caller at 40/s for the experiment's duration, failing where fail
// says, the registry's list sampled every 100 ms, registrations at regs.
type synth struct {
	x      experiment.Experiment
	fail   func(caller string, at time.Duration) bool
	listed func(at time.Duration) int
	regs   []time.Duration
	events history.Events
}

func (s synth) history() *history.History {
	h := &history.History{Timeline: s.x.Duration.D(), Events: s.events}
	for _, c := range s.x.Callers {
		for at := time.Duration(0); at < h.Timeline; at += 25 * time.Millisecond {
			op := history.Op{Caller: c.Name, Kind: history.OpCall, Scheduled: at, Start: at, End: at + time.Millisecond, Outcome: history.OK}
			if s.fail != nil && s.fail(c.Name, at) {
				op.Outcome = history.Fail
			}
			h.Ops = append(h.Ops, op)
		}
	}
	for at := time.Duration(0); at < h.Timeline; at += rig.ListedEvery {
		h.Ops = append(h.Ops, history.Op{Caller: "registry/listed", Kind: history.OpListed, Scheduled: at, Start: at, End: at, Count: s.listed(at), Outcome: history.OK})
	}
	for i, at := range s.regs {
		h.Ops = append(h.Ops, history.Op{Caller: "registry/register", Kind: history.OpRegister, Target: fmt.Sprint(i), Scheduled: at, Start: at, End: at + 5*time.Millisecond, Outcome: history.OK})
	}
	return h
}

// cut is the blackhole of step 1 from 3 s to 21 s.
func cut(from, to time.Duration) history.Events {
	return history.Events{{At: from, Kind: history.BlackholeLinks, Phase: history.Inject, Origin: 1},
		{At: to, Kind: history.BlackholeLinks, Phase: history.Heal, Origin: 1}}
}

func builtinX(t *testing.T, name string) experiment.Experiment {
	t.Helper()
	for _, x := range Builtins() {
		if x.Name == name {
			reg, err := rig.RegistryFor(etcdName)
			if err != nil {
				t.Fatal(err)
			}
			return rig.ExpandClients(reg, x)
		}
	}
	t.Fatalf("no built-in %s", name)
	return experiment.Experiment{}
}

func judgeSynth(t *testing.T, s synth) *report.Result {
	t.Helper()
	reg, err := rig.RegistryFor(etcdName)
	if err != nil {
		t.Fatal(err)
	}
	res := judge(reg, s.x, s.history())
	res.Finish()
	return res
}

// unreachableRun is registry-unreachable as etcd's rules say it goes:
// clear fails from 1.4 s after the cut until 0.5 s after the heal, the
// registry keeps listing the 3 instances.
func unreachableRun(t *testing.T) synth {
	return synth{x: builtinX(t, "registry-unreachable"), events: cut(3*time.Second, 21*time.Second),
		fail: func(c string, at time.Duration) bool {
			return c == "clear" && at >= 4400*time.Millisecond && at < 21500*time.Millisecond
		},
		listed: func(time.Duration) int { return 3 }}
}

func TestRegistryUnreachableJudge(t *testing.T) {
	if res := judgeSynth(t, unreachableRun(t)); res.Verdict != report.Reproduced {
		t.Fatalf("the rules' own run: %s", verdicts(res))
	}
	tests := []struct {
		name  string
		edit  func(*synth)
		check string
	}{
		{"keep fails while unreachable", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == "keep" && at > 10*time.Second && at < 11*time.Second
			}
		}, "keep: failures while the registry was unreachable"},
		{"clear never fails", func(s *synth) { s.fail = nil }, "clear: first failure after the registry became unreachable"},
		{"clear fails too soon (a fail-fast refresh)", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == "clear" && at >= 3050*time.Millisecond && at < 21500*time.Millisecond
			}
		}, "clear: first failure after the registry became unreachable"},
		{"clear serves between failures", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == "clear" && at >= 4400*time.Millisecond && at < 21500*time.Millisecond && at%(2*time.Second) > time.Second
			}
		}, "clear: failed share from its first failure until the registry returned"},
		{"the resolver's client fails", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == etcd.EtcdRoundRobin && at > 9*time.Second && at < 10*time.Second
			}
		}, etcd.EtcdRoundRobin + ": failed share while the registry was unreachable"},
		{"clear never recovers", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool { return c == "clear" && at >= 4400*time.Millisecond }
		}, "clear: failures after the registry returned (from 6s after)"},
		{"the registry drops live instances within 12 s (a lease lives 18–20 s of silence)", func(s *synth) {
			s.x.Timeline[0].For = experiment.Duration(12 * time.Second)
			s.events = cut(3*time.Second, 15*time.Second)
			s.fail = func(c string, at time.Duration) bool {
				return c == "clear" && at >= 4400*time.Millisecond && at < 15500*time.Millisecond
			}
			s.listed = func(at time.Duration) int {
				return map[bool]int{true: 0, false: 3}[at > 10*time.Second && at < 15*time.Second]
			}
		}, "the registry listed no instance while it was unreachable"},
	}
	for _, tc := range tests {
		s := unreachableRun(t)
		tc.edit(&s)
		res := judgeSynth(t, s)
		if v := verdictOf(res, tc.check); v != report.Outside {
			t.Errorf("%s: %q is %s, want outside (%s)", tc.name, tc.check, v, verdicts(res))
		}
	}
}

// rejoinRun is rejoin-jittered as etcd's rules say it goes: 50
// registrations spread over the 10 s after the heal at 42 s, all listed again by 52 s.
func rejoinRun(t *testing.T) synth {
	s := synth{x: builtinX(t, "rejoin-jittered"), events: cut(2*time.Second, 42*time.Second),
		listed: func(at time.Duration) int {
			switch {
			case at > 25*time.Second && at < 42*time.Second:
				return 0
			case at >= 42*time.Second && at < 52*time.Second:
				return int((at - 42*time.Second) / (200 * time.Millisecond))
			}
			return 50
		}}
	for i := range 50 {
		s.regs = append(s.regs, 42*time.Second+time.Duration(i)*200*time.Millisecond)
	}
	return s
}

func TestRejoinJudge(t *testing.T) {
	if res := judgeSynth(t, rejoinRun(t)); res.Verdict != report.Reproduced {
		t.Fatalf("the rules' own run: %s", verdicts(res))
	}
	tests := []struct {
		name  string
		edit  func(*synth)
		check string
	}{
		{"a jittered fleet comes back at once", func(s *synth) {
			for i := range s.regs {
				s.regs[i] = 42*time.Second + time.Duration(i)*time.Millisecond
			}
		}, "re-registrations in the busiest 100 ms after the registry returned"},
		{"the registry never lists them all again", func(s *synth) { s.listed = func(time.Duration) int { return 10 } },
			"every instance listed again after the registry returned"},
		{"the registry keeps silent instances past their ttl", func(s *synth) { s.listed = func(time.Duration) int { return 50 } },
			"the registry listed no instance while it was unreachable"},
	}
	for _, tc := range tests {
		s := rejoinRun(t)
		tc.edit(&s)
		res := judgeSynth(t, s)
		if v := verdictOf(res, tc.check); v != report.Outside {
			t.Errorf("%s: %q is %s, want outside (%s)", tc.name, tc.check, v, verdicts(res))
		}
	}
}

func verdictOf(res *report.Result, name string) report.Verdict {
	for _, c := range res.Checks {
		if c.Name == name {
			return c.Verdict
		}
	}
	return "absent"
}

func verdicts(res *report.Result) string {
	out := ""
	for _, c := range res.Checks {
		out += fmt.Sprintf("%s=%s (%s); ", c.Name, c.Verdict, c.MeasuredText)
	}
	return out
}

// TestRefreshInFlightAtTheCut: clear's first failure 0.35 s after the cut
// is too soon for a refresh started at the cut (its 0.5 s deadline), but
// not for one that began 0.2 s before the cut and failed at its deadline;
// a refresh in flight that succeeded moves nothing.
func TestRefreshInFlightAtTheCut(t *testing.T) {
	const check = "clear: first failure after the registry became unreachable"
	refresh := func(out history.Outcome) history.Op {
		return history.Op{Caller: "clear" + caller.RefreshSuffix, Kind: history.OpRefresh, Scheduled: 2800 * time.Millisecond,
			Start: 2800 * time.Millisecond, End: 3300 * time.Millisecond, Outcome: out}
	}
	tests := []struct {
		name string
		ops  []history.Op
		want report.Verdict
	}{
		{"no refresh in flight", nil, report.Outside},
		{"a refresh in flight failed", []history.Op{refresh(history.Fail)}, report.Reproduced},
		{"a refresh in flight answered", []history.Op{refresh(history.OK)}, report.Outside},
	}
	for _, tc := range tests {
		s := unreachableRun(t)
		s.fail = func(c string, at time.Duration) bool {
			return c == "clear" && at >= 3350*time.Millisecond && at < 21500*time.Millisecond
		}
		reg, err := rig.RegistryFor(etcdName)
		if err != nil {
			t.Fatal(err)
		}
		h := s.history()
		h.Ops = append(h.Ops, tc.ops...)
		res := judge(reg, s.x, h)
		res.Finish()
		if v := verdictOf(res, check); v != tc.want {
			t.Errorf("%s: %q is %s, want %s (%s)", tc.name, check, v, tc.want, verdicts(res))
		}
	}
}

// TestRecoveryPastTheRunIsNotJudged: a heal 2 s before the run's end leaves
// clear's recovery bound (its refresh and 1 s, etcd's rules) past the end:
// its failures after the heal are counted in the recovery and concluded
// "not judged", no check of them made, and the run stays judged (no
// invalid check, which would retry a run whose length alone is the cause).
func TestRecoveryPastTheRunIsNotJudged(t *testing.T) {
	s := unreachableRun(t)
	s.x.Duration = experiment.Duration(22 * time.Second)
	res := judgeSynth(t, s)
	if res.Verdict != report.Reproduced {
		t.Fatalf("verdict %s, want reproduced: %s", res.Verdict, verdicts(res))
	}
	for _, c := range res.Checks {
		if strings.HasPrefix(c.Name, "clear: failures after") {
			t.Errorf("check %q made, though the recovery bound ends after the run", c.Name)
		}
	}
	if !strings.Contains(strings.Join(res.Conclusion, " "), "clear failed") || res.Metrics["clear.fail_recovery"] == 0 {
		t.Errorf("clear's failures after the heal are not concluded and counted in the recovery: %v %v", res.Conclusion, res.Metrics)
	}
}
