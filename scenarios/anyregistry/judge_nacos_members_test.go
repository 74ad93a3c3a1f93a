package anyregistry

import (
	"testing"
	"time"

	"sdchaos/worlds/nacos"
)

// TestQuorumLossOnNacos: the survivor (n3) lists and registers alone (Distro, AP); every caller
// fails nothing while the loss holds — clear too, which reads past the killed members as
// nacos-client does —, nor the real clients after it.
func TestQuorumLossOnNacos(t *testing.T) {
	base := func() worldRun { return memberRun(t, nacosName, "quorum-loss", "n1", "n2") }
	testMembers(t, base, []memberCase{
		{"the survivor refuses a registration", func(w *worldRun) { w.answers = func(_, op string) bool { return op != "register" } },
			"n3 (survivor) at 8 s: register answers"},
		{"the survivor refuses a read", func(w *worldRun) { w.answers = func(_, op string) bool { return op != "list" } },
			"n3 (survivor) at 15 s: list answers"},
		{"keep fails", func(w *worldRun) { w.fail = failing("keep", 9*time.Second, 10*time.Second) },
			"keep: failures while quorum-loss held"},
		{"clear fails", func(w *worldRun) { w.fail = failing("clear", 9*time.Second, 10*time.Second) },
			"clear: failures while quorum-loss held"},
		{"go-sdk fails", func(w *worldRun) { w.fail = failing(nacos.NacosGoSDK, 9*time.Second, 12*time.Second) },
			"go-sdk: failures while quorum-loss held"},
		{"spring fails after the heal", func(w *worldRun) { w.fail = failing(nacos.NacosSpring, 25*time.Second, 26*time.Second) },
			"spring: failures after quorum-loss healed (from 0s after)"},
	})
}

// TestMemberCutOffOnNacos: every member lists and registers, the cut one (n2) as the others;
// no caller fails while the cut holds or after its heal.
func TestMemberCutOffOnNacos(t *testing.T) {
	base := func() worldRun { return memberRun(t, nacosName, "member-cut-off", "n2") }
	testMembers(t, base, []memberCase{
		{"the cut-off member refuses a read", func(w *worldRun) { w.answers = func(m, op string) bool { return m != "n2" || op != "list" } },
			"n2 (cut-off) at 8 s: list answers"},
		{"a majority member refuses a registration", func(w *worldRun) { w.answers = func(m, op string) bool { return m != "n1" || op != "register" } },
			"n1 (majority) at 15 s: register answers"},
		{"clear fails", func(w *worldRun) { w.fail = failing("clear", 10*time.Second, 11*time.Second) },
			"clear: failures while cut-off-member held"},
		{"plain fails", func(w *worldRun) { w.fail = failing(nacos.NacosPlain, 10*time.Second, 11*time.Second) },
			"plain: failures while cut-off-member held"},
		{"clear never recovers", func(w *worldRun) { w.fail = failing("clear", 10*time.Second, 30*time.Second) },
			"clear: failures after cut-off-member healed (from 2s after)"},
	})
}
