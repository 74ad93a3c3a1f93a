package report

import (
	"sdchaos/history"
	"testing"
	"time"
)

// TestCountByScheduleOrStart: a call due before a heal but started after
// it is during by its schedule and after by its start.
func TestCountByScheduleOrStart(t *testing.T) {
	const heal = time.Second
	ops := []history.Op{
		{Caller: "c", Scheduled: 900 * time.Millisecond, Start: 901 * time.Millisecond, Outcome: history.OK},
		{Caller: "c", Scheduled: 990 * time.Millisecond, Start: 1010 * time.Millisecond, Outcome: history.Fail}, // late: started after the heal
		{Caller: "c", Scheduled: 1100 * time.Millisecond, Start: 1101 * time.Millisecond, Outcome: history.Fail},
		{Caller: "other", Scheduled: 950 * time.Millisecond, Start: 950 * time.Millisecond, Outcome: history.Fail},
	}
	tests := []struct {
		name         string
		count        func([]history.Op, string, time.Duration, time.Duration) (int, int)
		from, to     time.Duration
		wantN, wantF int
	}{
		{"scheduled before the heal", Count, 0, heal, 2, 1},
		{"scheduled after the heal", Count, heal, 2 * heal, 1, 1},
		{"started before the heal", CountStarted, 0, heal, 1, 0},
		{"started after the heal", CountStarted, heal, 2 * heal, 2, 2},
	}
	for _, tc := range tests {
		if n, f := tc.count(ops, "c", tc.from, tc.to); n != tc.wantN || f != tc.wantF {
			t.Errorf("%s: %d ops, %d failed; want %d, %d", tc.name, n, f, tc.wantN, tc.wantF)
		}
	}
}
