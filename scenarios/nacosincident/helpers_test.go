package nacosincident

import (
	"os"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/history"
	"sdchaos/report"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

func mkHistory(ops []history.Op, d time.Duration, evs ...history.Event) *history.History {
	return &history.History{Ops: ops, Events: evs, Timeline: d}
}

func ev(at time.Duration, kind history.EventKind, phase history.Phase, targets ...string) history.Event {
	return history.Event{At: at, Kind: kind, Phase: phase, Targets: targets, Label: string(kind)}
}

// within keeps the ops of caller scheduled in [from, to) (other callers' ops pass).
func within(ops []history.Op, caller string, from, to time.Duration) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.Caller != caller || (op.Scheduled >= from && op.Scheduled < to) {
			out = append(out, op)
		}
	}
	return out
}

// sameJudgement fails unless a and b have the same verdict, gates, checks
// (verdict, measured value and text) and metrics.
func sameJudgement(t *testing.T, a, b *report.Result) {
	t.Helper()
	if a.Verdict != b.Verdict || len(a.Checks) != len(b.Checks) || len(a.Gates) != len(b.Gates) {
		t.Fatalf("verdict %s, %d checks, %d gates; want %s, %d, %d", a.Verdict, len(a.Checks), len(a.Gates), b.Verdict, len(b.Checks), len(b.Gates))
	}
	for i, c := range a.Checks {
		o := b.Checks[i]
		if c.Name != o.Name || c.Verdict != o.Verdict || c.MeasuredText != o.MeasuredText {
			t.Errorf("check %q: %s %q; want %q: %s %q", c.Name, c.Verdict, c.MeasuredText, o.Name, o.Verdict, o.MeasuredText)
		}
	}
	for i, g := range a.Gates {
		if g != b.Gates[i] {
			t.Errorf("gate %+v, want %+v", g, b.Gates[i])
		}
	}
	for k, v := range a.Metrics {
		if w, ok := b.Metrics[k]; !ok || (v != w && !(v != v && w != w)) {
			t.Errorf("metric %s = %v, want %v", k, v, w)
		}
	}
	if len(a.Metrics) != len(b.Metrics) {
		t.Errorf("%d metrics, want %d", len(a.Metrics), len(b.Metrics))
	}
}
