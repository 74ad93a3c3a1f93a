package anyregistry

import (
	"testing"
	"time"
)

// TestFailuresNoCheckJudgedAreCounted: a failure before the first fault and
// one in the recovery after the heal are judged by no check; the judge
// counts them apart (fail_not_judged, fail_recovery), and a failure inside a
// judged window counts in neither.
func TestFailuresNoCheckJudgedAreCounted(t *testing.T) {
	s := unreachableRun(t)
	base := s.fail
	s.fail = func(c string, at time.Duration) bool {
		if c == "keep" && (at == time.Second || at == 21*time.Second) {
			return true // before the cut; the first call after the heal (within the recovery bound)
		}
		return base(c, at)
	}
	res := judgeSynth(t, s)
	for metric, want := range map[string]float64{"keep.fail_not_judged": 1, "keep.fail_recovery": 1, "clear.fail_not_judged": 0} {
		if got := res.Metrics[metric]; got != want {
			t.Errorf("%s = %g, want %g", metric, got, want)
		}
	}
}
