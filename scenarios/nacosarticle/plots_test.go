package nacosarticle

import (
	"testing"
	"time"

	"sdchaos/figure/figuretest"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// TestPlotsOfTheNacosRoom renders snapshot-at-start's and the storm's
// plots from synthetic histories: every caller, the outage shaded, the
// restart and the heal marked.
func TestPlotsOfTheNacosRoom(t *testing.T) {
	t.Run("snapshot-at-start", func(t *testing.T) {
		evs := report.Events{
			{At: 2 * time.Second, Kind: report.BlackholeLinks, Phase: report.Inject, Targets: []string{"a"}, Label: "blackhole client links"},
			{At: 4 * time.Second, Kind: report.CallerStop, Phase: report.Once, Targets: []string{callerBefore}, Label: "caller before stops"},
			{At: 4 * time.Second, Kind: report.CallerStart, Phase: report.Once, Targets: []string{callerNoSnap}, Label: "caller nosnap starts"},
			{At: 8 * time.Second, Kind: report.BlackholeLinks, Phase: report.Heal, Targets: []string{"a"}, Label: "healed: blackhole client links"},
		}
		ops := scentest.Synth([]string{callerBefore, callerNoSnap, callerSnap}, 40, 12*time.Second,
			func(c string, at time.Duration) bool { return c == callerNoSnap && at < 8300*time.Millisecond })
		d := plotsOf(t, "snapshot-at-start", &report.History{Ops: ops, Events: evs, Timeline: 12 * time.Second}, "per-second")
		d.Has(t, "before the restart (writes the snapshot)", "nosnap: restarts with an empty list", "snap: restarts from the disk snapshot",
			"blackhole client links", "caller before stops; caller nosnap starts")
		d.AtLeastShaded(t, 6) // three panels: the window and its bar
	})
	t.Run("reregistration-storm", func(t *testing.T) {
		h := stormHistory(1000, stormShape{perBucket: burst(600), back: 1000}, stormShape{perBucket: spread(70), back: 1000})
		d := plotsOf(t, "reregistration-storm", h, "storm")
		d.Has(t, "N = 1000 registrants: calls per 100 ms after the registry comes back", "immediate: started by registrants",
			"immediate: received by the registry", "jitter: started by registrants", "jitter: received by the registry",
			"links heal: every registrant re-registers", "Registration calls in flight (most in each 100 ms)",
			"Latency of the re-registration calls after the heal", "registry served: p99", "immediate", "jitter")
	})
}

// plotsOf draws a scenario's plots from h and returns the one called name.
func plotsOf(t *testing.T, scenario string, h *report.History, name string) figuretest.Doc {
	t.Helper()
	plots, err := scentest.MustConfigure(t, scenario).(scenarios.Plotter).Plots(h)
	if err != nil {
		t.Fatal(err)
	}
	return figuretest.One(t, figuretest.Render(t, plots), name)
}
