package anyregistry

import (
	"strings"
	"testing"
	"time"

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

// eitherRules answers only whether the registry removes silent instances,
// and allows either answer.
type eitherRules struct{}

func (eitherRules) RemovesSilent(experiment.How, time.Duration) experiment.Band {
	return experiment.Band{Lo: 0, Hi: 1, Basis: "a rule that allows both"}
}

// eitherWorld is a world whose rules allow both answers to that question.
type eitherWorld struct{ rig.Registry }

func (eitherWorld) Rules(experiment.Experiment) experiment.Rules { return eitherRules{} }

// TestABandThatAcceptsBothAnswersIsNoCheck: a yes/no band of 0–1 cannot
// fail, so the answer is reported with its rule, not judged as a check.
func TestABandThatAcceptsBothAnswersIsNoCheck(t *testing.T) {
	for _, b := range []struct {
		band experiment.Band
		want bool
	}{{experiment.Band{Lo: 0, Hi: 1}, true}, {experiment.Band{Lo: 0, Hi: 0}, false}, {experiment.Band{Lo: 1, Hi: 1}, false}} {
		if got := eitherWay(b.band); got != b.want {
			t.Errorf("eitherWay(%v) = %v, want %v", b.band, got, b.want)
		}
	}
	reg, err := rig.RegistryFor(etcdName)
	if err != nil {
		t.Fatal(err)
	}
	s := unreachableRun(t)
	res := judge(eitherWorld{reg}, s.x, s.history())
	res.Finish()
	for _, c := range res.Checks {
		if c.Name == "the registry listed no instance while it was unreachable" {
			t.Fatalf("a check that cannot fail was made: %+v", c)
		}
	}
	if !strings.Contains(strings.Join(res.Conclusion, " "), "kept its instances while it was unreachable (the rule allows either: a rule that allows both; reported, not judged)") {
		t.Errorf("conclusion does not report the answer with its rule:\n%s", strings.Join(res.Conclusion, "\n"))
	}
}
