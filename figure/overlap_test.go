package figure_test

import (
	"testing"
	"time"

	"sdchaos/figure"
	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/report"
)

// TestLanesDrawOverlappingOpsApart: ops of one lane that overlap in time
// (a put hanging to its deadline while the next starts) are drawn on
// sub-rows — every op is a bar of its own and no two bars overlap, where
// they once merged into one bar of the later op's colour.
func TestLanesDrawOverlappingOpsApart(t *testing.T) {
	s := time.Second
	ops := []history.Op{
		{Caller: "kv/n1/put", Kind: history.OpPut, Start: 2 * s, End: 9 * s, Outcome: history.Unknown},
		{Caller: "kv/n1/put", Kind: history.OpPut, Start: 3 * s, End: 10 * s, Outcome: history.OK},
		{Caller: "kv/n1/put", Kind: history.OpPut, Start: 4 * s, End: 4*s + time.Millisecond, Outcome: history.Fail},
		{Caller: "kv/n1/put", Kind: history.OpPut, Start: 11 * s, End: 11*s + time.Millisecond, Outcome: history.OK},
		{Caller: "kv/n2/put", Kind: history.OpPut, Start: 2 * s, End: 3 * s, Outcome: history.OK},
	}
	lanes := []figure.Lane{{Name: "kv/n1/put", Ops: ops[:4]}, {Name: "kv/n2/put", Ops: ops[4:]}}
	p, err := figure.Lanes("operations", lanes, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, []figure.Plot{figure.One("lanes", p)}), "lanes")
	bars := d.Bars(figure.OK, figure.Fail, figure.Grey)
	if got := len(bars) - 3; got != len(ops) { // the legend shows one swatch per outcome
		t.Errorf("%d bars drawn for %d ops: %+v", got, len(ops), bars)
	}
	if a, b, ok := figuretest.OverlappingBars(bars); ok {
		t.Errorf("two bars overlap: %+v and %+v", a, b)
	}
}

// TestLanesHighlightStaleReads: an op a highlight selects is drawn in the
// highlight's colour under its own legend entry, not in its outcome's
// green.
func TestLanesHighlightStaleReads(t *testing.T) {
	stale := history.Op{Caller: "kv/n1/ser-get", Kind: history.OpSerGet, Seq: 7, Start: 5 * time.Second, End: 5*time.Second + time.Millisecond, Outcome: history.OK}
	fresh := stale
	fresh.Seq, fresh.Start, fresh.End = 3, time.Second, time.Second+time.Millisecond
	lanes := figure.LanesOf([]history.Op{fresh, stale}, func(history.Op) (int, bool) { return 0, true })
	p, err := figure.Lanes("operations", lanes, nil, nil,
		figure.Highlight{Name: "stale read", Color: figure.Stale, Is: func(op history.Op) bool { return op.Seq == 7 }})
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, []figure.Plot{figure.One("lanes", p)}), "lanes")
	d.Has(t, "stale read", "ok")
	if n := len(d.Bars(figure.Stale)); n != 2 { // the bar and its legend swatch
		t.Errorf("%d bars in the stale colour, want the stale op's and the legend's", n)
	}
	if n := len(d.Bars(figure.OK)); n != 2 {
		t.Errorf("%d green bars, want the fresh op's and the legend's", n)
	}
}

// TestOverlappingWindowsAreStriped: where two fault windows overlap, each
// point of the panel is shaded by one of them (stripes of both colours),
// never by both at once (a blend no label names).
func TestOverlappingWindowsAreStriped(t *testing.T) {
	evs := history.Events{
		{At: 2 * time.Second, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n1"}, Label: "SIGKILL etcd n1"},
		{At: 4 * time.Second, Kind: history.CrashInstance, Phase: history.Inject, Targets: []string{"i1"}, Label: "crash instance i1"},
		{At: 5 * time.Second, Kind: history.EventKind("delay-eureka-servers"), Phase: history.Inject, Targets: []string{"s1"}, Label: "+200ms latency"},
		{At: 8 * time.Second, Kind: history.KillMembers, Phase: history.Heal, Targets: []string{"n1"}, Label: "healed: SIGKILL etcd n1"},
	}
	ws, ms := figure.RunWindows(evs, 10)
	p, err := figure.TimeSeries("overlap", "time (s)", "calls", ws, ms, figure.Line{Name: "ok", X: []float64{0, 10}, Y: []float64{40, 40}})
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, []figure.Plot{figure.One("overlap", p)}), "overlap")
	d.Has(t, "SIGKILL etcd n1", "crash instance i1", "+200ms latency")
	if n := d.MostShaded(); n != 1 {
		t.Errorf("%d window fills lie on top of each other at one point, want 1 (stripes)", n)
	}
}

// TestInClusterKeepsTheClusterAndTheWorld: a panel of one cluster draws its
// cluster's events and those of none.
func TestInClusterKeepsTheClusterAndTheWorld(t *testing.T) {
	evs := history.Events{{Label: "on", Cluster: "on"}, {Label: "off", Cluster: "off"}, {Label: "world"}}
	got := figure.InCluster(evs, "on")
	if len(got) != 2 || got[0].Label != "on" || got[1].Label != "world" {
		t.Errorf("InCluster(on) = %+v, want the on event and the world's", got)
	}
}

// TestTimedOutShowsWhereItEqualsFailed: when every failure timed out, the
// timed-out count coincides with the failed one; it is hatched under the
// failed line (grey fills), where a dotted line of the failed colour
// vanished under it.
func TestTimedOutShowsWhereItEqualsFailed(t *testing.T) {
	s := report.Series{OK: []int{40, 0, 0, 40}, Fail: []int{0, 40, 40, 0}, Unknown: []int{0, 40, 40, 0}}
	f, err := figure.PerSecond("per-second", []figure.Caller{{Label: "real client", Series: s}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, []figure.Plot{f}), "per-second")
	d.Has(t, "of which timed out")
	hatched := 0
	for _, sh := range d.Shapes() {
		if sh.Fill == figuretest.Hex(figure.Grey) {
			hatched++
		}
	}
	if hatched < 10 {
		t.Errorf("%d grey hatch lines, want the two timed-out seconds hatched", hatched)
	}
}

// TestMarksHaveATickInTheStrip: a one-off action's dashed line may hide
// behind the data, so its label in the strip has a grey tick at its x.
func TestMarksHaveATickInTheStrip(t *testing.T) {
	ws, ms := figure.RunWindows(history.Events{{At: 4 * time.Second, Kind: history.CallerStart, Phase: history.Once, Label: "caller snap starts"}}, 10)
	p, err := figure.TimeSeries("restart", "time (s)", "calls", ws, ms, figure.Line{Name: "ok", X: []float64{0, 10}, Y: []float64{40, 40}})
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, []figure.Plot{figure.One("restart", p)}), "restart")
	if n := len(d.Bars(figure.Grey)); n != 1 {
		t.Errorf("%d grey ticks, want the mark's one", n)
	}
}
