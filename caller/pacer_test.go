package caller

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"sdchaos/clock"
)

func TestScheduleCountAndSpacing(t *testing.T) {
	tests := []struct {
		rate float64
		d    time.Duration
		want int
	}{
		{40, 10 * time.Second, 400},
		{40, time.Second, 40},
		{3, time.Second, 3},
		{2000, 2 * time.Second, 4000},
		{7, 1500 * time.Millisecond, 11},
	}
	for _, tc := range tests {
		s := Schedule{T0: time.Unix(0, 0), Rate: tc.rate}
		if got := s.Count(tc.d); got != tc.want {
			t.Errorf("rate %g over %s: Count = %d, want %d", tc.rate, tc.d, got, tc.want)
		}
	}
	// Every full second at 40/s holds exactly 40 sends.
	s := Schedule{T0: time.Unix(0, 0), Rate: 40}
	perSec := map[int]int{}
	for k := 0; k < s.Count(10*time.Second); k++ {
		perSec[int(s.At(k).Sub(s.T0)/time.Second)]++
	}
	for sec := 0; sec < 10; sec++ {
		if perSec[sec] != 40 {
			t.Errorf("second %d holds %d sends", sec, perSec[sec])
		}
	}
}

// TestPaceOpenLoop: a slow send does not shift later ones. Sends every
// 10 ms; send 10 blocks the pacer for block, so sends 11 to 30 go out late,
// at once — send 11 at least block − 10 ms late (a sleep is never short) —
// and the schedule resumes: the sends due after the block (35 to 49) go out
// at their times, their median lateness within one late wake-up
// (clock.SchedSlack), where a schedule shifted by the block would make
// every one of them at least block − 10 ms late.
func TestPaceOpenLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("real time")
	}
	const spacing, block = 10 * time.Millisecond, 200 * time.Millisecond
	s := Schedule{T0: time.Now().Add(20 * time.Millisecond), Rate: float64(time.Second / spacing)}
	var late []time.Duration
	err := s.Pace(context.Background(), 500*time.Millisecond, func(k int, due time.Time) {
		late = append(late, time.Since(due))
		if k == 10 {
			time.Sleep(block) // blocks the pacer: sends 11–30 go out late, at once
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(late) != 50 {
		t.Fatalf("%d sends, want 50", len(late))
	}
	if late[11] < block-spacing {
		t.Errorf("send 11 lateness %s: the blocking send did not delay it (want ≥ %s)", late[11], block-spacing)
	}
	after := slices.Clone(late[35:])
	slices.Sort(after)
	if med := after[len(after)/2]; med > clock.SchedSlack {
		t.Errorf("sends 35–49: median lateness %s (want ≤ %s): the schedule shifted after a late send", med, clock.SchedSlack)
	}
}

// BenchmarkPace2000 runs an open-loop pacer at 2000 req/s for 3 s per
// iteration and reports the worst per-second deviation of sends counted by
// their actual send time (target ±1 %) and the p99 send lateness (target
// ≤ 2 ms). Run: go test ./caller -run XXX -bench Pace2000 -benchtime 1x
func BenchmarkPace2000(b *testing.B) {
	const rate, secs = 2000, 3
	var worstDev, p99 float64
	for i := 0; i < b.N; i++ {
		s := Schedule{T0: time.Now().Add(50 * time.Millisecond), Rate: rate}
		sent := make([]time.Time, 0, rate*secs)
		var late []float64
		err := s.Pace(context.Background(), secs*time.Second, func(k int, due time.Time) {
			now := time.Now()
			sent = append(sent, now)
			late = append(late, float64(now.Sub(due))/float64(time.Millisecond))
			go func() {}() // a send starts a goroutine, as the caller does
		})
		if err != nil {
			b.Fatal(err)
		}
		perSec := make([]int, secs+1)
		for _, at := range sent {
			perSec[int(at.Sub(s.T0)/time.Second)]++
		}
		for sec := 0; sec < secs; sec++ {
			worstDev = max(worstDev, 100*abs(float64(perSec[sec]-rate))/rate)
		}
		sort.Float64s(late)
		p99 = max(p99, late[len(late)*99/100])
		b.Logf("per-second sends %v, p50 lateness %.3f ms, p99 %.3f ms, max %.3f ms",
			perSec[:secs], late[len(late)/2], late[len(late)*99/100], late[len(late)-1])
	}
	b.ReportMetric(worstDev, "worst-%dev/s")
	b.ReportMetric(p99, "p99-late-ms")
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
