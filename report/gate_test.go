package report

import (
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
	}
	for _, tc := range tests {
		if g := wakeGate(tc.op); g.OK != tc.ok {
			t.Errorf("%+v: gate ok %v, want %v (%s)", tc.op, g.OK, tc.ok, g.Measured)
		}
	}
}
