package report

import (
	"sdchaos/history"
	"testing"
	"time"
)

// TestCountByScheduleOrStart: a call due before a heal but started after
// it is during by its schedule and after by its start; by its end, a call
// still running at the heal is after it.
func TestCountByScheduleOrStart(t *testing.T) {
	const heal = time.Second
	ops := []history.Op{
		{Caller: "c", Scheduled: 900 * time.Millisecond, Start: 901 * time.Millisecond, End: 902 * time.Millisecond, Outcome: history.OK},
		{Caller: "c", Scheduled: 950 * time.Millisecond, Start: 951 * time.Millisecond, End: 1200 * time.Millisecond, Outcome: history.Fail},  // running at the heal
		{Caller: "c", Scheduled: 990 * time.Millisecond, Start: 1010 * time.Millisecond, End: 1011 * time.Millisecond, Outcome: history.Fail}, // late: started after the heal
		{Caller: "c", Scheduled: 1100 * time.Millisecond, Start: 1101 * time.Millisecond, End: 1102 * time.Millisecond, Outcome: history.Fail},
		{Caller: "other", Scheduled: 950 * time.Millisecond, Start: 950 * time.Millisecond, End: 951 * time.Millisecond, Outcome: history.Fail},
	}
	tests := []struct {
		name         string
		count        func([]history.Op, string, time.Duration, time.Duration) (int, int)
		from, to     time.Duration
		wantN, wantF int
	}{
		{"scheduled before the heal", Count, 0, heal, 3, 2},
		{"scheduled after the heal", Count, heal, 2 * heal, 1, 1},
		{"started before the heal", CountStarted, 0, heal, 2, 1},
		{"started after the heal", CountStarted, heal, 2 * heal, 2, 2},
		{"ended before the heal", CountEnded, 0, heal, 1, 0},
		{"ended after the heal", CountEnded, heal, 2 * heal, 3, 3},
	}
	for _, tc := range tests {
		if n, f := tc.count(ops, "c", tc.from, tc.to); n != tc.wantN || f != tc.wantF {
			t.Errorf("%s: %d ops, %d failed; want %d, %d", tc.name, n, f, tc.wantN, tc.wantF)
		}
	}
}

func TestWindowMax(t *testing.T) {
	tests := []struct {
		xs   []float64
		k    int
		want float64
	}{
		{nil, 1, 0},
		{[]float64{1, 5, 2}, 0, 5},
		{[]float64{1, 5, 2, 0, 0, 4}, 1, 8},
		{[]float64{3, 0, 0, 0, 3}, 1, 3},
		{[]float64{3, 0, 0, 0, 3}, 4, 6},
	}
	for _, tc := range tests {
		if got := WindowMax(tc.xs, tc.k); got != tc.want {
			t.Errorf("WindowMax(%v, %d) = %g, want %g", tc.xs, tc.k, got, tc.want)
		}
	}
}
