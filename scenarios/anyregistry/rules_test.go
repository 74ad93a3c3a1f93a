package anyregistry

import (
	"strings"
	"testing"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/rig"
)

// ruleless is a world that answers none of the judges' questions: every
// check that needs a rule is then reported, counted, as not judged.
type ruleless struct{ rig.Registry }

func (ruleless) Rules(experiment.Experiment) experiment.Rules { return struct{}{} }

// TestAWorldWithoutRulesIsNotJudged: the same run judged with and without
// the world's rules: without them no rule-bound check is made, and the
// conclusion counts each caller's failures as not judged, naming the rule.
func TestAWorldWithoutRulesIsNotJudged(t *testing.T) {
	reg, err := rig.RegistryFor(etcdName)
	if err != nil {
		t.Fatal(err)
	}
	s := unreachableRun(t)
	with := judge(reg, s.x, s.history())
	without := judge(ruleless{reg}, s.x, s.history())
	with.Finish()
	without.Finish()
	if len(without.Checks) >= len(with.Checks) {
		t.Fatalf("without rules %d checks, with them %d: want fewer", len(without.Checks), len(with.Checks))
	}
	for _, c := range without.Checks {
		if strings.HasPrefix(c.Name, "clear: first failure") || strings.Contains(c.Name, "failures after the registry returned") {
			t.Errorf("check %q made without the rule it needs", c.Name)
		}
	}
	for _, want := range []string{"no rule for when a refresh fails: not judged", "no rule for the recovery: not judged", "no rule for it: not judged"} {
		if !strings.Contains(strings.Join(without.Conclusion, " "), want) {
			t.Errorf("conclusion lacks %q:\n%s", want, without.Conclusion)
		}
	}
	if without.Verdict == report.Outside {
		t.Errorf("verdict %s without rules, want no outside", without.Verdict)
	}
}
