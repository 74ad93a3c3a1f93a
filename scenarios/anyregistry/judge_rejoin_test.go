package anyregistry

import (
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// TestRejoinFromListedGains judges a world that records no registration
// (Nacos: nacos-sdk-go registers again inside its reconnect) from the
// gains of the registry's list: a spread return is reproduced, a return
// at once against a spread's band is outside, and a heal in stages (the
// instances' links healed after the callers') ends the window at its first
// heal.
func TestRejoinFromListedGains(t *testing.T) {
	atOnce := func(at time.Duration) int {
		if at > 25*time.Second && at < 42*time.Second {
			return 0
		}
		return 50
	}
	staged := append(cut(2*time.Second, 42*time.Second),
		history.Event{At: 47 * time.Second, Kind: history.BlackholeLinks, Phase: history.Heal, Origin: 1},
		history.Event{At: 51 * time.Second, Kind: history.BlackholeLinks, Phase: history.Heal, Origin: 1})
	tests := []struct {
		name  string
		edit  func(*synth)
		check string
		want  report.Verdict
	}{
		{"spread over 10 s", func(*synth) {}, "re-registrations in the busiest 100 ms after the registry returned", report.Reproduced},
		{"all at once", func(s *synth) { s.listed = atOnce }, "re-registrations in the busiest 100 ms after the registry returned", report.Outside},
		{"never all again", func(s *synth) { s.listed = func(time.Duration) int { return 10 } }, "every instance listed again after the registry returned", report.Outside},
		{"healed in stages", func(s *synth) { s.events = staged }, "every instance listed again after the registry returned", report.Reproduced},
	}
	for _, tc := range tests {
		s := rejoinRun(t)
		s.regs = nil
		tc.edit(&s)
		res := judgeSynth(t, s)
		if v := verdictOf(res, tc.check); v != tc.want {
			t.Errorf("%s: %q is %s, want %s (%s)", tc.name, tc.check, v, tc.want, verdicts(res))
		}
	}
}

// TestWindowEndsAtFirstHeal: a step healed in stages is back at its first heal.
func TestWindowEndsAtFirstHeal(t *testing.T) {
	s := rejoinRun(t)
	s.events = append(cut(2*time.Second, 42*time.Second),
		history.Event{At: 50 * time.Second, Kind: history.BlackholeLinks, Phase: history.Heal, Origin: 1})
	r := &run{x: s.x, h: s.history()}
	if w := r.windowOf(0, s.x.Timeline[0]); w.to != 42*time.Second || !w.healed {
		t.Fatalf("window ends at %s (healed %v), want 42s", w.to, w.healed)
	}
}
