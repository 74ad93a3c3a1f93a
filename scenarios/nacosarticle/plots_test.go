package nacosarticle

import (
	"testing"
	"time"

	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// TestPlotsOfTheNacosRoom renders snapshot-at-start's and the storm's
// plots from synthetic histories: every caller, the outage shaded, the
// restart and the heal marked.
func TestPlotsOfTheNacosRoom(t *testing.T) {
	t.Run("snapshot-at-start", func(t *testing.T) {
		evs := history.Events{
			{At: 2 * time.Second, Kind: history.BlackholeLinks, Phase: history.Inject, Targets: []string{"a"}, Label: "blackhole client links"},
			{At: 4 * time.Second, Kind: history.CallerStop, Phase: history.Once, Targets: []string{callerBefore}, Label: "caller before stops"},
			{At: 4 * time.Second, Kind: history.CallerStart, Phase: history.Once, Targets: []string{callerNoSnap}, Label: "caller nosnap starts"},
			{At: 8 * time.Second, Kind: history.BlackholeLinks, Phase: history.Heal, Targets: []string{"a"}, Label: "healed: blackhole client links"},
		}
		ops := scentest.Synth([]string{callerBefore, callerNoSnap, callerSnap, scenarios.RealRoundRobin, scenarios.RealPickFirst}, 40, 12*time.Second,
			func(c string, at time.Duration) bool { return c == callerNoSnap && at < 8300*time.Millisecond })
		d := plotsOf(t, "snapshot-at-start", &history.History{Ops: ops, Events: evs, Timeline: 12 * time.Second}, "per-second")
		d.Has(t, "before the restart (writes the snapshot)", "nosnap: restarts with an empty list", "snap: restarts from the disk snapshot",
			"real client restarted: etcd resolver + round_robin", "real client restarted: etcd resolver + pick_first",
			"blackhole client links", "caller before stops; caller nosnap starts")
		d.AtLeastShaded(t, 10) // five panels: the window and its bar
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
func plotsOf(t *testing.T, scenario string, h *history.History, name string) figuretest.Doc {
	t.Helper()
	plots, err := scentest.MustConfigure(t, scenario).(scenarios.Plotter).Plots(h)
	if err != nil {
		t.Fatal(err)
	}
	return figuretest.One(t, figuretest.Render(t, plots), name)
}

// TestPlotsOfTheNacosNetworkFaults draws registry-jitter's callers per
// second and minority-partition's operation lanes from synthetic
// histories, with their faults shaded.
func TestPlotsOfTheNacosNetworkFaults(t *testing.T) {
	t.Run("registry-jitter", func(t *testing.T) {
		evs := history.Events{
			{At: 2 * time.Second, Kind: history.BlackholeLinks, Phase: history.Inject, Targets: []string{"n1"}, Label: "blackhole client links to 3 etcd members"},
			{At: 20 * time.Second, Kind: history.BlackholeLinks, Phase: history.Heal, Targets: []string{"n1"}, Label: "healed: blackhole client links"},
		}
		ops := scentest.Synth([]string{"naive", "keep", "stale_fallback", "empty_protect"}, 40, 27*time.Second,
			func(c string, at time.Duration) bool {
				return c == "naive" && at > 3*time.Second && at < 20*time.Second
			})
		d := plotsOf(t, "registry-jitter", &history.History{Ops: ops, Events: evs, Timeline: 27 * time.Second}, "per-second")
		d.Has(t, "naive: clear the list on a failed refresh — 40 requests/s", "empty_protect: keep + ignore an empty answer — 40 requests/s",
			"blackhole client links to 3 etcd members", "ok", "failed")
		d.AtLeastShaded(t, 8) // four panels: the window and its bar
	})
	t.Run("minority-partition", func(t *testing.T) {
		evs := history.Events{
			{At: 2 * time.Second, Kind: history.PartitionMember, Phase: history.Inject, Targets: []string{"n1"}, Label: "partition n1 from its peers"},
			{At: 8 * time.Second, Kind: history.PartitionMember, Phase: history.Heal, Targets: []string{"n1"}, Label: "healed: partition n1"},
		}
		ops := []history.Op{
			{Caller: opMajPut, Start: 3 * time.Second, End: 3*time.Second + 5*time.Millisecond, Outcome: history.OK},
			{Caller: opIsoLinRead, Start: 3 * time.Second, End: 5 * time.Second, Outcome: history.Unknown},
			{Caller: "kv/n2/put", Start: time.Second, End: time.Second + time.Millisecond, Outcome: history.Fail},
		}
		d := plotsOf(t, "minority-partition", &history.History{Ops: ops, Events: evs, Timeline: 10 * time.Second}, "operations")
		d.Has(t, opMajPut, opIsoLinRead, "kv/n2/put", "ok", "failed", "unknown (timed out)", "partition n1 from its peers")
		d.AtLeastShaded(t, 2)
	})
}
