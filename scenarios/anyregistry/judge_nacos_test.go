package anyregistry

import (
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/rig"
)

// nacosRun is registry-unreachable on Nacos as its rules say it goes: the real clients (spring,
// plain, go-sdk) fail nothing, clear fails from 1.4 s after the cut until 0.5 s after the heal,
// the server keeps listing the 3 instances through 18 s of silence.
func nacosRun(t *testing.T) (rig.Registry, synth) {
	t.Helper()
	reg, err := rig.RegistryFor(nacosName)
	if err != nil {
		t.Fatal(err)
	}
	var x experiment.Experiment
	for _, b := range Builtins() {
		if b.Name == "registry-unreachable" {
			x = rig.ExpandClients(reg, b)
		}
	}
	return reg, synth{x: x, events: cut(3*time.Second, 21*time.Second),
		fail: func(c string, at time.Duration) bool {
			return c == "clear" && at >= 4400*time.Millisecond && at < 21500*time.Millisecond
		},
		listed: func(time.Duration) int { return 3 }}
}

// TestRegistryUnreachableJudgeOnNacosRules: the run Nacos's rules describe is reproduced; a
// real client failing while unreachable, and a server that emptied its list within 18 s, are
// outside them.
func TestRegistryUnreachableJudgeOnNacosRules(t *testing.T) {
	reg, s := nacosRun(t)
	res := judge(reg, s.x, s.history())
	res.Finish()
	if res.Verdict != report.Reproduced {
		t.Fatalf("the rules' own run: %s", verdicts(res))
	}
	tests := []struct {
		name  string
		edit  func(*synth)
		check string
	}{
		{"spring fails while unreachable", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == "spring" && at > 9*time.Second && at < 10*time.Second
			}
		}, "spring: failed share while the registry was unreachable"},
		{"the server emptied its list within 18 s (no ejection before 19.75 s)", func(s *synth) {
			s.listed = func(at time.Duration) int {
				return map[bool]int{true: 0, false: 3}[at > 15*time.Second && at < 21*time.Second]
			}
		}, "the registry listed no instance while it was unreachable"},
	}
	for _, tc := range tests {
		reg, s := nacosRun(t)
		tc.edit(&s)
		res := judge(reg, s.x, s.history())
		res.Finish()
		if v := verdictOf(res, tc.check); v != report.Outside {
			t.Errorf("%s: %q is %s, want outside (%s)", tc.name, tc.check, v, verdicts(res))
		}
	}
}
