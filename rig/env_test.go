package rig

import (
	"testing"
	"time"
)

// TestCallerPhaseDoesNotDependOnOtherDraws: one seed gives one phase
// whatever a world drew from the run's source before asking, in
// [0, DefaultRefresh); it is the first draw of a fresh source, and seeds
// move it.
func TestCallerPhaseDoesNotDependOnOtherDraws(t *testing.T) {
	seen := map[time.Duration]bool{}
	for seed := int64(1); seed <= 20; seed++ {
		a, b := NewEnv(seed, 0, 0, false, nil, nil), NewEnv(seed, 0, 0, false, nil, nil)
		for range 7 {
			b.Rand.Int64() // a world that draws the crashed instance or the survivor first
		}
		pa, pb := a.CallerPhase(), b.CallerPhase()
		if pa != pb || pa < 0 || pa >= DefaultRefresh {
			t.Fatalf("seed %d: phase %s and, after other draws, %s; want one phase in [0, %s)", seed, pa, pb, DefaultRefresh)
		}
		if first := time.Duration(NewEnv(seed, 0, 0, false, nil, nil).Rand.Int64N(int64(DefaultRefresh))); first != pa {
			t.Errorf("seed %d: phase %s, the source's first draw %s", seed, pa, first)
		}
		seen[pa] = true
	}
	if len(seen) < 15 {
		t.Errorf("20 seeds gave %d phases: the seed does not move it", len(seen))
	}
}
