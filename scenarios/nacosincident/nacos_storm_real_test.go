package nacosincident

import (
	"testing"

	"sdchaos/internal/cmdrun"
	"sdchaos/scenarios/scentest"
)

// stormPortBase keeps the real storm's two phases apart from the other tests' ports while
// they run: each phase uses stormPhaseSpan ports from 34400 + phase × stormPhaseSpan.
const stormPortBase = 34400

// TestNacosStormAgainstRealNacos runs nacos-storm for real at 20 instances (two fresh Nacos
// servers, one per phase, about three minutes; skipped under -short and without Java or
// Maven): the server removes every instance during the 40 s loss and lists them again within
// the rules' bands after the heal, healed at once and jittered, and no check goes outside.
func TestNacosStormAgainstRealNacos(t *testing.T) {
	cmdrun.NeedJVM(t, "two real Nacos servers, one per phase")
	scentest.NeedLong(t, "about three and a half minutes")
	scentest.RunReproduced(t, stormPortBase, "starts two real Nacos servers (JVMs)", "nacos-storm", "--instances", "20")
}
