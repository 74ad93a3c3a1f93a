package anyregistry

import (
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/worlds/nacos"
)

// packetRun is registry-packet-loss on the Nacos cluster as its rules say it goes: every client
// packet dropped from 3 s to 21 s, the real clients fail nothing, clear fails from 1.4 s after
// the cut until 0.5 s after the heal, the list keeps its 3 instances through the loss.
func packetRun(t *testing.T) (rig.Registry, synth) {
	t.Helper()
	reg, err := rig.RegistryFor(nacosName)
	if err != nil {
		t.Fatal(err)
	}
	x := builtinOn(t, nacosName, "registry-packet-loss")
	events := history.Events{{At: 3 * time.Second, Kind: history.PacketDropClients, Phase: history.Inject, Origin: 1},
		{At: 21 * time.Second, Kind: history.PacketDropClients, Phase: history.Heal, Origin: 1}}
	return reg, synth{x: x, events: events,
		fail: func(c string, at time.Duration) bool {
			return c == "clear" && at >= 4400*time.Millisecond && at < 21500*time.Millisecond
		},
		listed: func(time.Duration) int { return 3 }}
}

// TestRegistryPacketLossJudgeOnNacosRules: the run Nacos's rules describe is reproduced; a real
// client failing while the packets are lost, a list emptied within 18 s, and a caller still
// failing past the relist bound after the heal are outside them; a caller failing right after
// the heal (a removal the lost probes allow) is not judged.
func TestRegistryPacketLossJudgeOnNacosRules(t *testing.T) {
	reg, s := packetRun(t)
	res := judge(reg, s.x, s.history())
	res.Finish()
	if res.Verdict != report.Reproduced {
		t.Fatalf("the rules' own run: %s", verdicts(res))
	}
	tests := []struct {
		name  string
		edit  func(*synth)
		check string
		want  report.Verdict
	}{
		{"go-sdk fails while the packets are lost", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == nacos.NacosGoSDK && at > 9*time.Second && at < 10*time.Second
			}
		}, "go-sdk: failed share while the registry was unreachable", report.Outside},
		{"the list emptied within 18 s", func(s *synth) {
			s.listed = func(at time.Duration) int {
				return map[bool]int{true: 0, false: 3}[at > 15*time.Second && at < 21*time.Second]
			}
		}, "the registry listed no instance while it was unreachable", report.Outside},
		{"plain fails past the relist bound", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == nacos.NacosPlain && at > 35*time.Second && at < 36*time.Second
			}
		}, "plain: failures after the registry returned (from 10.7s after)", report.Outside},
		{"plain fails right after the heal", func(s *synth) {
			s.fail = func(c string, at time.Duration) bool {
				return c == nacos.NacosPlain && at > 21*time.Second && at < 22*time.Second
			}
		}, "plain: failures after the registry returned (from 10.7s after)", report.Reproduced},
	}
	for _, tc := range tests {
		reg, s := packetRun(t)
		tc.edit(&s)
		res := judge(reg, s.x, s.history())
		res.Finish()
		if v := verdictOf(res, tc.check); v != tc.want {
			t.Errorf("%s: %q is %s, want %s (%s)", tc.name, tc.check, v, tc.want, verdicts(res))
		}
	}
}

// TestMemberPacketLossOnNacos: with one member's client packets dropped the list keeps every
// instance, keep and the real clients fail nothing while it holds, clear's share is the member it
// reads through (not judged), and every caller serves again after the heal.
func TestMemberPacketLossOnNacos(t *testing.T) {
	base := func() worldRun {
		w := memberRun(t, nacosName, "member-packet-loss", "n2")
		w.answers = nil // no members probe: the harness's probe is not cut by the drop
		return w
	}
	testMembers(t, base, []memberCase{
		{"the list empties", func(w *worldRun) {
			w.listed = func(at time.Duration) int {
				return map[bool]int{true: 0, false: 3}[at > 10*time.Second && at < 12*time.Second]
			}
		}, "the registry listed no instance while member-unreachable held"},
		{"keep fails", func(w *worldRun) { w.fail = failing("keep", 10*time.Second, 11*time.Second) },
			"keep: failures while member-unreachable held"},
		{"go-sdk fails", func(w *worldRun) { w.fail = failing(nacos.NacosGoSDK, 10*time.Second, 11*time.Second) },
			"go-sdk: failed share while member-unreachable held"},
		{"clear never recovers", func(w *worldRun) { w.fail = failing("clear", 10*time.Second, 30*time.Second) },
			"clear: failures after member-unreachable healed (from 2s after)"},
	})
}
