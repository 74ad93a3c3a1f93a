package nacosarticle

import (
	"testing"
	"time"

	"sdchaos/storm"
)

// TestRegistrantsPerHarnessCore pins the formula: N ÷ (harness CPU ÷ the
// longest harness process's metered time); absent where no harness
// process recorded its metered time (histories saved before it existed).
func TestRegistrantsPerHarnessCore(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name string
		n    int
		cs   []storm.ProcCost
		want float64 // 0: absent
	}{
		{"one process, half a core", 5000, []storm.ProcCost{{Name: "harness", CPU: 10 * s, Wall: 20 * s}, {Name: "n1", CPU: 30 * s}}, 10000},
		{"two shards, a core each", 5000, []storm.ProcCost{{Name: "harness shard 0/2", CPU: 20 * s, Wall: 20 * s},
			{Name: "harness shard 1/2", CPU: 20 * s, Wall: 19 * s}, {Name: "n1", CPU: 5 * s}}, 2500},
		{"readers count, their time is the shard's", 1000, []storm.ProcCost{{Name: "harness", CPU: 4 * s, Wall: 10 * s},
			{Name: "harness (metrics readers)", CPU: 1 * s}}, 2000},
		{"no metered time", 5000, []storm.ProcCost{{Name: "harness", CPU: 10 * s}, {Name: "n1", CPU: 30 * s}}, 0},
	} {
		got, ok := costMetrics(c.n, c.cs)["cost.registrants_per_harness_core"]
		if c.want == 0 {
			if ok {
				t.Errorf("%s: got %g, want the metric absent", c.name, got)
			}
			continue
		}
		if !ok || got < c.want*0.999 || got > c.want*1.001 {
			t.Errorf("%s: got %g (present %v), want %g", c.name, got, ok, c.want)
		}
	}
}
