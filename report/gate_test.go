package report

import (
	"strings"
	"testing"
	"time"

	"sdchaos/history"
)

// TestWakeGate: a scaled-time run whose probe saw a wake-up later than the
// bands' allowance judged nothing.
func TestWakeGate(t *testing.T) {
	tests := []struct {
		op history.Op
		ok bool
	}{
		{history.Op{Caller: history.WakeOp, Value: "50ms", Seq: 1000, Scheduled: time.Second, Start: time.Second + 30*time.Millisecond}, true},
		{history.Op{Caller: history.WakeOp, Value: "50ms", Seq: 1000, Count: 1, Scheduled: time.Second, Start: time.Second + 80*time.Millisecond}, false},
		{history.Op{Caller: history.WakeOp, Value: "soon", Seq: 1000}, false},
		{history.Op{Caller: history.WakeOp + "/s2", Value: "50ms", Seq: 1000, Count: 1, Scheduled: time.Second, Start: time.Second + 60*time.Millisecond}, false},
	}
	for _, tc := range tests {
		if g := wakeGate(tc.op); g.OK != tc.ok {
			t.Errorf("%+v: gate ok %v, want %v (%s)", tc.op, g.OK, tc.ok, g.Measured)
		}
	}
}

// TestEveryProcessHasAWakeGate: the harness's probe and each server's
// probe are judged, each under its own name, the harness's first.
func TestEveryProcessHasAWakeGate(t *testing.T) {
	h := &history.History{Ops: []history.Op{{Caller: history.WakeOp, Value: "50ms", Seq: 10},
		{Caller: history.WakeOp + "/s1", Value: "50ms", Seq: 10}, {Caller: history.WakeOp + "/on-s3", Value: "50ms", Seq: 10, Count: 2}}}
	var names []string
	failed := 0
	for _, g := range Gates(h) {
		if strings.Contains(g.Name, "timers woke") {
			names = append(names, g.Name)
			if !g.OK {
				failed++
			}
		}
	}
	if len(names) != 3 || !strings.HasPrefix(names[1], "server on-s3's") || !strings.HasPrefix(names[2], "server s1's") || failed != 1 {
		t.Errorf("wake gates %q (%d failed), want the harness's, then on-s3's and s1's (by name), one failed", names, failed)
	}
}
