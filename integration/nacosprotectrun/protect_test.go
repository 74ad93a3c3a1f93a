package nacosprotectrun_test

import (
	"testing"

	"sdchaos/internal/cmdrun"
	_ "sdchaos/scenarios/nacosincident" // registers nacos-protect-threshold
	"sdchaos/scenarios/scentest"
)

// protectPortBase keeps the runs apart from the other packages' ports: JRaft at 44000, the
// server at 45000 (gRPC 46000, 46001), the links and endpoints from 45002 (a Nacos server's
// main port must be at least nacos.MinMainPort). The two runs go one after the other on
// the same ports.
const protectPortBase = 44000

// TestProtectThresholdAtBothSettings runs nacos-protect-threshold for real at Nacos's default
// protectThreshold (0) and at its variant's (0.5), at the shortest timeline its validation
// allows (--crash-at 5s, every instance dead at 59 s, 113 s in all): with 3 of 4 instances dead
// the server hands out the one healthy instance at 0 and all four at 0.5 (the protection fires
// and callers hit the dead ones), and no check goes outside Nacos's rules at either setting.
func TestProtectThresholdAtBothSettings(t *testing.T) {
	cmdrun.NeedJVM(t, "a real Nacos server and Java callers")
	scentest.NeedLong(t, "about five minutes")
	for _, threshold := range []string{"0", "0.5"} {
		t.Run("threshold "+threshold, func(t *testing.T) {
			scentest.RunReproduced(t, protectPortBase, "starts a real Nacos server and Java callers (JVMs)", "nacos-protect-threshold",
				"--threshold", threshold, "--crash-at", "5s", "--all-dead-at", "59s", "--duration", "113s")
		})
	}
}
