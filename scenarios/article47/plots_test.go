package article47

import (
	"slices"
	"testing"
	"time"

	"sdchaos/figure"
	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// TestPlotsOfArticle47 renders each scenario's plot from a synthetic
// history: every caller's panel, and the faults shaded and labelled.
func TestPlotsOfArticle47(t *testing.T) {
	kill := history.Event{At: 2 * time.Second, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n1", "n2", "n3"}, Label: "SIGKILL etcd n1,n2,n3"}
	crash := history.Event{At: 4 * time.Second, Kind: history.CrashInstance, Phase: history.Inject, Targets: []string{"j2"}, Label: "crash instance j2"}
	tests := []struct {
		name, scenario string
		callers        []string
		events         history.Events
		texts          []string
		shaded         int
	}{
		{"cache-on-failure", "cache-on-failure", []string{"keep", "clear"}, history.Events{kill},
			[]string{"(a) keep the old list when a refresh fails — 40 requests/s", "(b) clear the list when a refresh fails — 40 requests/s",
				"ok", "failed", "SIGKILL etcd n1,n2,n3", "calls per second"}, 4},
		{"passive-ejection", "passive-ejection", []string{"none", "eject"}, history.Events{kill, crash},
			[]string{"(a) no passive ejection — 40 requests/s over 3 instances", "(b) eject an instance locally for 30s after a failed call",
				"SIGKILL etcd n1,n2,n3", "crash instance j2"}, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := scentest.MustConfigure(t, tc.scenario)
			ops := scentest.Synth(tc.callers, 40, 10*time.Second, func(c string, at time.Duration) bool { return c == tc.callers[1] && at >= 3*time.Second })
			plots, err := cfg.(scenarios.Plotter).Plots(&history.History{Ops: ops, Events: tc.events, Timeline: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			d := figuretest.One(t, figuretest.Render(t, plots), "per-second")
			d.Has(t, tc.texts...)
			d.AtLeastShaded(t, tc.shaded)
		})
	}
}

// TestPlotOfMinority draws minority's operation lanes from a synthetic
// history: the survivor's probes and a member's key-value operations, each
// outcome in the legend, the kill shaded until the restart.
func TestPlotOfMinority(t *testing.T) {
	evs := history.Events{
		{At: 2 * time.Second, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n1", "n2"}, Label: "SIGKILL etcd n1,n2"},
		{At: 10 * time.Second, Kind: history.KillMembers, Phase: history.Heal, Targets: []string{"n1", "n2"}, Label: "healed: SIGKILL etcd n1,n2"},
	}
	ops := []history.Op{
		{Caller: opSerRead, Start: 3 * time.Second, End: 3*time.Second + time.Millisecond, Outcome: history.OK},
		{Caller: opLinRead, Start: 3 * time.Second, End: 5 * time.Second, Outcome: history.Unknown},
		{Caller: opLeader, Start: 10 * time.Second, End: 11 * time.Second, Outcome: history.OK},
		{Caller: "kv/n1/put", Kind: history.OpPut, Via: "n1", Target: "/kv/a", Value: "n1-0", Start: 2 * time.Second, End: 2*time.Second + time.Millisecond, Outcome: history.Fail},
		{Caller: "kv/n3/put", Kind: history.OpPut, Via: "n3", Target: "/kv/c", Value: "n3-1", Start: 3 * time.Second, End: 9 * time.Second, Outcome: history.Unknown},
		{Caller: "kv/n3/put", Kind: history.OpPut, Via: "n3", Target: "/kv/c", Value: "n3-2", Start: 4 * time.Second, End: 11 * time.Second, Outcome: history.OK},
		{Caller: "gate/ready", Kind: history.OpGate, Start: 0, End: time.Second, Outcome: history.OK},
	}
	plots, err := scentest.MustConfigure(t, "minority").(scenarios.Plotter).Plots(&history.History{Ops: ops, Events: evs, Timeline: 12 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, plots), "operations")
	d.Has(t, opSerRead, opLinRead, opLeader, "kv/n1/put", "ok", "failed", "unknown (timed out)", "SIGKILL etcd n1,n2",
		"time since the run started (s)")
	d.AtLeastShaded(t, 2) // the kill's window and its bar
	if slices.Contains(d.Texts, "gate/ready") {
		t.Error("the gate op has a lane")
	}
	// The put hanging to its deadline and the next put of n3 are two bars
	// on two sub-rows, not one merged bar.
	bars := d.Bars(figure.OK, figure.Fail, figure.Grey)
	if got := len(bars) - 3; got != len(ops)-1 { // the legend's three swatches; the gate is not drawn
		t.Errorf("%d bars for %d ops", got, len(ops)-1)
	}
	if a, b, ok := figuretest.OverlappingBars(bars); ok {
		t.Errorf("two bars overlap: %+v and %+v", a, b)
	}
}
