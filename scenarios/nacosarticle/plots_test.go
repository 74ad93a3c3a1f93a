package nacosarticle

import (
	"slices"
	"strings"
	"testing"
	"time"

	"sdchaos/figure"
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
		d := scentest.PlotsOf(t, "snapshot-at-start", &history.History{Ops: ops, Events: evs, Timeline: 12 * time.Second}, "per-second")
		d.Has(t, "before the restart (writes the snapshot)", "nosnap: restarts with an empty list", "snap: restarts from the disk snapshot",
			"real client restarted: etcd resolver + round_robin", "real client restarted: etcd resolver + pick_first",
			"blackhole client links", "caller before stops; caller nosnap starts")
		d.AtLeastShaded(t, 10) // five panels: the window and its bar
	})
	t.Run("reregistration-storm", func(t *testing.T) {
		h := stormHistory(1000, stormShape{perBucket: burst(600), back: 1000}, stormShape{perBucket: spread(70), back: 1000})
		d := scentest.PlotsOf(t, "reregistration-storm", h, "storm")
		d.Has(t, "N = 1000 registrants: calls per 100 ms after the registry comes back", "immediate: started by registrants",
			"immediate: received by the registry", "jitter: started by registrants", "jitter: received by the registry",
			"links heal: every registrant re-registers", "Registration calls in flight (most in each 100 ms)",
			"Latency of the re-registration calls after the heal", "registry served: p99", "immediate", "jitter")
	})
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
		d := scentest.PlotsOf(t, "registry-jitter", &history.History{Ops: ops, Events: evs, Timeline: 27 * time.Second}, "per-second")
		d.Has(t, "naive: clear the list on a failed refresh — 40 requests/s",
			"identical: keep, stale_fallback, empty_protect — 40 ok / 0 failed every second",
			"blackhole client links to 3 etcd members", "ok", "failed")
		d.AtLeastShaded(t, 4) // two panels: the window and its bar
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
		d := scentest.PlotsOf(t, "minority-partition", &history.History{Ops: ops, Events: evs, Timeline: 10 * time.Second}, "operations")
		d.Has(t, opMajPut, opIsoLinRead, "kv/n2/put", "ok", "failed", "unknown (timed out)", "partition n1 from its peers")
		d.AtLeastShaded(t, 2)
	})
}

// TestRegistryJitterDrawsTheCallersThatFailedApart: the callers that
// counted the same every second share one panel naming them; each caller
// that differs has its own (here naive, failing during the jitter, and
// keep, failing after it): the reader sees at once which failed.
func TestRegistryJitterDrawsTheCallersThatFailedApart(t *testing.T) {
	ops := scentest.Synth([]string{"naive", "keep", "stale_fallback", "empty_protect"}, 40, 27*time.Second,
		func(c string, at time.Duration) bool {
			return (c == "naive" && at > 3*time.Second && at < 20*time.Second) || (c == "keep" && at >= 20*time.Second && at < 21*time.Second)
		})
	d := scentest.PlotsOf(t, "registry-jitter", &history.History{Ops: ops, Timeline: 27 * time.Second}, "per-second")
	titles := []string{"naive: clear the list on a failed refresh — 40 requests/s", "keep: keep on failure, replace on success (even empty) — 40 requests/s",
		"identical: stale_fallback, empty_protect — 40 ok / 0 failed every second"}
	d.Has(t, titles...)
	for _, gone := range []string{"stale_fallback: keep + last non-empty list when empty — 40 requests/s", "empty_protect: keep + ignore an empty answer — 40 requests/s"} {
		if slices.Contains(d.Texts, gone) {
			t.Errorf("%q has a panel of its own, though it counted as stale_fallback and empty_protect did every second", gone)
		}
	}
	if n := strings.Count(strings.Join(d.Texts, "\n"), "calls per second"); n != len(titles) {
		t.Errorf("%d panels, want %d", n, len(titles))
	}
}

// TestMinorityPartitionDrawsStaleReadsApart: the isolated member's
// serializable reads that missed a put the majority acknowledged before
// they began (a key-value get and the probe) are drawn as stale reads, in
// their own colour under their own legend entry — not green like a good
// read; the get that read the current value stays green; the member's
// puts that hang to their deadline while the next begin are drawn on
// sub-rows, no two bars overlapping.
func TestMinorityPartitionDrawsStaleReadsApart(t *testing.T) {
	s := time.Second
	kv := func(via string, k history.OpKind, key, value string, from, to time.Duration, o history.Outcome) history.Op {
		return history.Op{Caller: history.KVCaller(via, k), Kind: k, Via: via, Target: key, Value: value, Start: from, End: to, Outcome: o}
	}
	evs := history.Events{
		{At: 2 * s, Kind: history.PartitionMember, Phase: history.Inject, Targets: []string{"n1"}, Label: "partition n1 from its peers"},
		{At: 8 * s, Kind: history.PartitionMember, Phase: history.Heal, Targets: []string{"n1"}, Label: "healed: partition n1"},
	}
	ops := []history.Op{
		{Caller: opMajLeader, Kind: history.OpProbe, Start: 2 * s, End: 3 * s, Value: "n2", Outcome: history.OK},
		{Caller: opMajPut, Kind: history.OpProbe, Start: 3 * s, End: 3*s + 5*time.Millisecond, Outcome: history.OK},
		{Caller: opIsoSerRead, Kind: history.OpProbe, Start: 3100 * time.Millisecond, End: 3101 * time.Millisecond, Outcome: history.OK},
		kv("n1", history.OpPut, "/kv/a", "n1-0", 0, 5*time.Millisecond, history.OK),
		kv("n2", history.OpPut, "/kv/a", "n2-1", 4*s, 4*s+5*time.Millisecond, history.OK),
		kv("n1", history.OpSerGet, "/kv/a", "n1-0", 5*s, 5*s+time.Millisecond, history.OK), // stale: n2-1 was acknowledged
		kv("n2", history.OpSerGet, "/kv/a", "n2-1", 5*s, 5*s+time.Millisecond, history.OK), // current
		kv("n1", history.OpPut, "/kv/b", "n1-2", 2*s, 4*s, history.Unknown),
		kv("n1", history.OpPut, "/kv/b", "n1-3", 3*s, 5*s, history.Unknown), // overlaps the one before
		kv(history.ViaEvery, history.OpGet, "/kv/a", "n2-1", 9*s, 9*s+time.Millisecond, history.OK),
	}
	d := scentest.PlotsOf(t, "minority-partition", &history.History{Ops: ops, Events: evs, Timeline: 10 * s}, "operations")
	d.Has(t, "stale read", "ok", "unknown (timed out)", opIsoSerRead, "kv/n1/ser-get", "kv/n1/put")
	if n := len(d.Bars(figure.Stale)); n != 3 { // the probe's, the get's, the legend's
		t.Errorf("%d bars in the stale colour, want 3: the probe's read, n1's ser-get and the legend's swatch", n)
	}
	bars := d.Bars(figure.OK, figure.Fail, figure.Grey, figure.Stale)
	if a, b, ok := figuretest.OverlappingBars(bars); ok {
		t.Errorf("two bars overlap: %+v and %+v", a, b)
	}
}
