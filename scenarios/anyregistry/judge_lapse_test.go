package anyregistry

import (
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// verdictFor returns the verdict of the check whose name starts with prefix.
func verdictFor(res *report.Result, prefix string) report.Verdict {
	for _, c := range res.Checks {
		if strings.HasPrefix(c.Name, prefix) {
			return c.Verdict
		}
	}
	return "absent"
}

// zkExpiredRun is registry-unreachable on ZooKeeper when the 18 s cut
// outlasted the 20 s sessions (the server counts from the last ping, up
// to a third of the timeout before the cut): the nodes are gone from 19 s,
// the registrants create them again 0.35–0.45 s after the heal, and in
// that gap keep's refresh and Curator's rebuilt cache list nothing.
func zkExpiredRun(t *testing.T, curatorFails func(time.Duration) bool) synth {
	heal := 21 * time.Second
	return synth{x: builtinOn(t, zookeeperName, "registry-unreachable"), events: cut(3*time.Second, heal),
		fail: func(c string, at time.Duration) bool {
			switch c {
			case "clear":
				return at >= 4400*time.Millisecond && at < heal+1500*time.Millisecond
			case "keep":
				return at >= heal && at < heal+900*time.Millisecond
			case "curator-servicecache":
				return curatorFails(at)
			}
			return false
		},
		listed: func(at time.Duration) int {
			if at >= 19*time.Second && at < heal+500*time.Millisecond {
				return 0
			}
			return 3
		},
		regs: []time.Duration{heal + 350*time.Millisecond, heal + 400*time.Millisecond, heal + 450*time.Millisecond}}
}

// TestZooKeeperSessionsExpiredJudge: a Curator cache that lists nothing
// for a moment after the heal, while the expired instances register
// again, is within ZooKeeper's rules; one that still fails after the
// bound (the registrants' re-registration plus the cache's lag) is not.
func TestZooKeeperSessionsExpiredJudge(t *testing.T) {
	const check = "curator-servicecache: failures after the registry returned"
	heal := 21 * time.Second
	reg, err := rig.RegistryFor(zookeeperName)
	if err != nil {
		t.Fatal(err)
	}
	bound, _ := reg.Rules(builtinOn(t, zookeeperName, "registry-unreachable")).(experiment.RecoveryRule).Recovery(experiment.Caller{Kind: experiment.RealClient, Client: "curator-servicecache"},
		experiment.Outage{How: experiment.Blackhole, Cut: 18 * time.Second}, time.Second)
	tests := []struct {
		name  string
		fails func(time.Duration) bool
		want  report.Verdict
	}{
		{"one call on the emptied cache at the heal", func(at time.Duration) bool { return at >= heal+100*time.Millisecond && at < heal+125*time.Millisecond }, report.Reproduced},
		{"failing up to the heal + 0.9 s", func(at time.Duration) bool { return at >= heal && at < heal+900*time.Millisecond }, report.Reproduced},
		{"a call failing after the bound", func(at time.Duration) bool {
			return at >= heal+bound+500*time.Millisecond && at < heal+bound+525*time.Millisecond
		}, report.Outside},
		{"never recovering", func(at time.Duration) bool { return at >= heal }, report.Outside},
	}
	for _, tc := range tests {
		res := judgeWorld(t, worldRun{reg: zookeeperName, synth: zkExpiredRun(t, tc.fails)})
		if v := verdictFor(res, check); v != tc.want {
			t.Errorf("%s: %q is %s, want %s (%s)", tc.name, check, v, tc.want, verdicts(res))
		}
		if tc.want == report.Reproduced && res.Verdict != report.Reproduced {
			t.Errorf("%s: the rules' own run is %s: %s", tc.name, res.Verdict, verdicts(res))
		}
	}
}

// crashedInOutage is instance-dies-unreachable: the registry unreachable from 3 s
// to 21 s, an instance crashed at 9 s (crash, its injection's error: ""
// when it took effect); the registry lists relisted instances from 0.4 s
// after the heal, two registrations then.
func crashedInOutage(t *testing.T, world experiment.Registry, crashErr string, relisted int) worldRun {
	heal := 21 * time.Second
	events := append(cut(3*time.Second, heal), history.Event{At: 9 * time.Second, Kind: history.CrashInstance, Phase: history.Inject,
		Origin: 2, Targets: []string{"i1"}, Err: crashErr})
	return worldRun{reg: world, synth: synth{x: builtinOn(t, world, "instance-dies-unreachable"), events: events,
		listed: func(at time.Duration) int {
			switch {
			case at < 19*time.Second:
				return 3
			case at < heal+400*time.Millisecond:
				return 0
			}
			return relisted
		},
		regs: []time.Duration{heal + 300*time.Millisecond, heal + 350*time.Millisecond}}}
}

// TestRelistedCountsTheLiving: after an instance crashed during the
// outage, every instance alive at the heal (2 of 3) listed again is the
// whole fleet; one of them missing, or 2 when the crash never took effect,
// is not. On every world whose bound the run's 9 s after the heal leave.
func TestRelistedCountsTheLiving(t *testing.T) {
	const check = "every instance listed again after the registry returned"
	tests := []struct {
		crashErr string
		relisted int
		want     report.Verdict
	}{
		{"", 2, report.Reproduced},
		{"", 1, report.Outside},
		{"", 3, report.Reproduced},
		{"no such instance", 2, report.Outside},
		{"no such instance", 3, report.Reproduced},
	}
	for _, world := range []experiment.Registry{etcdName, zookeeperName, eurekaName} {
		for _, tc := range tests {
			res := judgeWorld(t, crashedInOutage(t, world, tc.crashErr, tc.relisted))
			if v := verdictOf(res, check); v != tc.want {
				t.Errorf("%s, crash error %q, %d listed again: %s, want %s (%s)", world, tc.crashErr, tc.relisted, v, tc.want, verdicts(res))
			}
		}
	}
}

// TestAliveAt: the instances alive at a time are the count minus the
// distinct ones crashed before it by a crash step that took effect.
func TestAliveAt(t *testing.T) {
	x := builtinOn(t, etcdName, "instance-dies-unreachable")
	x.Timeline = append(x.Timeline, experiment.Step{At: x.Timeline[1].At, Fault: experiment.CrashInstance})
	crash := func(at time.Duration, origin int, id, err string) history.Event {
		return history.Event{At: at, Kind: history.CrashInstance, Phase: history.Inject, Origin: origin, Targets: []string{id}, Err: err}
	}
	tests := []struct {
		name    string
		events  history.Events
		at      time.Duration
		alive   int
		crashed int
	}{
		{"no crash", nil, 21 * time.Second, 3, 0},
		{"one crash before", history.Events{crash(9*time.Second, 2, "i1", "")}, 21 * time.Second, 2, 1},
		{"one crash after", history.Events{crash(22*time.Second, 2, "i1", "")}, 21 * time.Second, 3, 0},
		{"a crash that failed", history.Events{crash(9*time.Second, 2, "i1", "refused")}, 21 * time.Second, 3, 0},
		{"two steps, two instances", history.Events{crash(9*time.Second, 2, "i1", ""), crash(10*time.Second, 3, "i2", "")}, 21 * time.Second, 1, 2},
		{"two steps, the same instance", history.Events{crash(9*time.Second, 2, "i1", ""), crash(10*time.Second, 3, "i1", "")}, 21 * time.Second, 2, 1},
	}
	for _, tc := range tests {
		r := &run{x: x, h: &history.History{Events: tc.events}}
		if alive, crashed := r.aliveAt(tc.at); alive != tc.alive || crashed != tc.crashed {
			t.Errorf("%s: %d alive, %d crashed; want %d, %d", tc.name, alive, crashed, tc.alive, tc.crashed)
		}
	}
}
