package anyregistry

import (
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
)

// TestStretch: --fault-for sets the one healed fault step's length and moves what follows it and
// the run's end by the difference; an experiment with two healed steps or none is refused.
func TestStretch(t *testing.T) {
	sec := func(n int) experiment.Duration { return experiment.Duration(time.Duration(n) * time.Second) }
	x := experiment.Experiment{Name: "x", Summary: "x", Duration: sec(40), Instances: experiment.Instances{Count: 3},
		Timeline: []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.Unreachable, How: experiment.Drop},
			{At: sec(10), Probe: experiment.ProbeMembers}, {At: sec(1), Probe: experiment.ProbeMembers}}}
	got, err := stretch(x, 40*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got.Duration != sec(62) || got.Timeline[0].For != sec(40) || got.Timeline[1].At != sec(32) || got.Timeline[2].At != sec(1) {
		t.Errorf("stretched to 40 s: duration %s, for %s, later step at %s, earlier step at %s; want 62s, 40s, 32s, 1s",
			got.Duration, got.Timeline[0].For, got.Timeline[1].At, got.Timeline[2].At)
	}
	if x.Timeline[0].For != sec(18) {
		t.Error("stretch changed its argument")
	}
	if short, err := stretch(x, 10*time.Second); err != nil || short.Duration != sec(32) {
		t.Errorf("shortened to 10 s: %v, duration %s; want 32s", err, short.Duration)
	}
	two := x
	two.Timeline = append(append([]experiment.Step(nil), x.Timeline...), experiment.Step{At: sec(30), For: sec(5), Fault: experiment.QuorumLoss})
	none := x
	none.Timeline = x.Timeline[1:]
	for name, bad := range map[string]experiment.Experiment{"more than one": two, "no healed": none} {
		if _, err := stretch(bad, 25*time.Second); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("stretch: %v, want an error saying %q", err, name)
		}
	}
}
