package cluster

import (
	"strings"
	"testing"

	"sdchaos/experiment"
)

// TestRulesMemberReads: a linearizable read needs a quorum, so every read
// fails under a quorum loss and only those sent to the cut-off member fail
// when one is cut off.
func TestRulesMemberReads(t *testing.T) {
	tests := []struct {
		f    experiment.FaultKind
		want experiment.Reads
	}{
		{experiment.QuorumLoss, experiment.ReadsFail},
		{experiment.CutOffMember, experiment.ReadsSome},
	}
	for _, tc := range tests {
		reads, why := Rules{}.MemberReads(tc.f)
		if reads != tc.want || !strings.Contains(why, "ReadIndex") {
			t.Errorf("MemberReads(%s) = %s (%q), want %s", tc.f, reads, why, tc.want)
		}
	}
}
