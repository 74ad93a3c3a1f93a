package nacos

import (
	"testing"
	"time"

	"sdchaos/experiment"
)

// TestRulesFollowTheEjector: the removal bands come from the ejector's rule (KeepAliveTime of
// silence, at most ClientKeepAlive of it before the cut, EjectProbeTimeout, LowSlack): 18 s
// removes nothing, 40 s every instance, 22 s either; a policy caller recovers by its next
// refresh when nothing was removed, by RelistBy + its refresh otherwise.
func TestRulesFollowTheEjector(t *testing.T) {
	r := Rules{SilentAtCut: ClientKeepAlive}
	if got := NoRemovalBelow(ClientKeepAlive); got != 19750*time.Millisecond {
		t.Fatalf("NoRemovalBelow(5s) = %s, want 20s − 5s + 5s − 250ms", got)
	}
	for _, tc := range []struct {
		d      time.Duration
		lo, hi float64
	}{{18 * time.Second, 0, 0}, {22 * time.Second, 0, 1}, {40 * time.Second, 1, 1}} {
		if b := r.RemovesSilent(experiment.Blackhole, tc.d); b.Lo != tc.lo || b.Hi != tc.hi || b.Basis == "" {
			t.Errorf("RemovesSilent(%s) = %+v, want [%g, %g] with a basis", tc.d, b, tc.lo, tc.hi)
		}
	}
	keep := experiment.Caller{Name: "keep", Kind: experiment.PolicyCaller}
	real := experiment.Caller{Name: "go-sdk", Kind: experiment.RealClient, Client: "go-sdk"}
	for _, tc := range []struct {
		loss time.Duration
		c    experiment.Caller
		want time.Duration
	}{
		{18 * time.Second, keep, 2 * time.Second},
		{18 * time.Second, real, 0},
		{40 * time.Second, keep, RelistBy() + 2*time.Second},
		{40 * time.Second, real, RelistBy() + DeliverSlack},
	} {
		r.Loss = tc.loss
		if got, why := r.Recovery(tc.c, experiment.Outage{How: experiment.Blackhole, Cut: tc.loss}, time.Second); got != tc.want || why == "" {
			t.Errorf("loss %s, %s: Recovery %s (%q), want %s", tc.loss, tc.c.Name, got, why, tc.want)
		}
	}
}

// TestClientAfterCrashBands: Spring's round robin gives the dead instance 1/n of the calls ± 3;
// the random pickers a binomial band that holds its mean and excludes none and all.
func TestClientAfterCrashBands(t *testing.T) {
	var r Rules
	b, ok := r.ClientAfterCrash("spring", 3, 40, 10*time.Second)
	if !ok || b.Lo != 130 || b.Hi != 137 {
		t.Errorf("spring: %+v (%v), want [133 − 3, 134 + 3]", b, ok)
	}
	for _, c := range []string{"plain", "go-sdk"} {
		b, ok := r.ClientAfterCrash(c, 3, 40, 10*time.Second)
		if mean := 400.0 / 3; !ok || b.Lo <= 0 || b.Hi >= 400 || b.Lo > mean || b.Hi < mean {
			t.Errorf("%s: %+v (%v): want a band around %.0f within (0, 400)", c, b, ok, mean)
		}
	}
	if _, ok := r.ClientAfterCrash("nobody", 3, 40, 10*time.Second); ok {
		t.Error("a client the world does not know has a rule")
	}
}
