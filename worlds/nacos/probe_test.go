package nacos

import (
	"testing"
	"time"
)

// TestProbeSampleCPUReadAt: a rate of CPU use is taken between the CPU readings, not between
// the readiness answers (a busy server answers late); a record without CPUAt falls back to At.
func TestProbeSampleCPUReadAt(t *testing.T) {
	tests := []struct {
		p    ProbeSample
		want time.Duration
	}{
		{ProbeSample{At: 3 * time.Second, CPUAt: time.Second}, time.Second},
		{ProbeSample{At: 3 * time.Second}, 3 * time.Second},
	}
	for _, tc := range tests {
		if got := tc.p.CPUReadAt(); got != tc.want {
			t.Errorf("%+v: CPUReadAt %s, want %s", tc.p, got, tc.want)
		}
	}
}
