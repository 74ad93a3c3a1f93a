package clock

import (
	"testing"
	"time"
)

// TestWakeProbeCountsLateWakeUps: a wake-up later than SchedSlack counts
// as late; the worst is kept with its due time; Reset starts over.
func TestWakeProbeCountsLateWakeUps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		lates          []time.Duration
		wantLate       int
		wantWorst      time.Duration
		wantWorstIndex int
	}{
		{[]time.Duration{time.Millisecond, 2 * time.Millisecond}, 0, 2 * time.Millisecond, 1},
		{[]time.Duration{SchedSlack, time.Millisecond}, 0, SchedSlack, 0},
		{[]time.Duration{SchedSlack + time.Millisecond, 3 * SchedSlack, time.Millisecond}, 2, 3 * SchedSlack, 1},
	}
	for _, tc := range tests {
		var p WakeProbe
		p.note(t0, time.Hour)
		p.Reset()
		for i, l := range tc.lates {
			p.note(t0.Add(time.Duration(i)*time.Second), l)
		}
		st := p.Stats()
		if st.Wakes != len(tc.lates) || st.Late != tc.wantLate || st.Worst != tc.wantWorst || !st.WorstDue.Equal(t0.Add(time.Duration(tc.wantWorstIndex)*time.Second)) {
			t.Errorf("%v: got %+v, want %d late, worst %s at #%d", tc.lates, st, tc.wantLate, tc.wantWorst, tc.wantWorstIndex)
		}
	}
}
