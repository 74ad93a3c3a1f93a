package caller

import (
	"context"
	"math"
	"runtime"
	"time"
)

// Schedule is an open-loop send schedule: send k is due at T0 + k/Rate.
// A late send never shifts the ones after it.
type Schedule struct {
	T0   time.Time
	Rate float64
}

// At returns when send k is due.
func (s Schedule) At(k int) time.Time {
	return s.T0.Add(time.Duration(math.Round(float64(k) * float64(time.Second) / s.Rate)))
}

// Count returns how many sends fall in [T0, T0+d).
func (s Schedule) Count(d time.Duration) int {
	n := int(math.Ceil(d.Seconds() * s.Rate))
	for n > 0 && !s.At(n-1).Before(s.T0.Add(d)) {
		n--
	}
	for s.At(n).Before(s.T0.Add(d)) {
		n++
	}
	return n
}

// spinSlack is how long before a due time the pacer stops sleeping on a
// timer and yields in a loop instead: timer wake-ups on a VM come late by
// 0.5–3 ms, too coarse for 2000 req/s.
const spinSlack = time.Millisecond

// Pace calls send(k, due) for every send due in [T0, T0+d), each at its due
// time (or at once if already late), without waiting for earlier sends to
// finish: send must return quickly (start a goroutine for slow work). It
// returns early if ctx ends.
func (s Schedule) Pace(ctx context.Context, d time.Duration, send func(k int, due time.Time)) error {
	return s.PaceFrom(ctx, 0, d, send)
}

// PaceFrom is Pace for the sends due in [T0+from, T0+d).
func (s Schedule) PaceFrom(ctx context.Context, from, d time.Duration, send func(k int, due time.Time)) error {
	n := s.Count(d)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for k := s.Count(from); k < n; k++ {
		due := s.At(k)
		if wait := time.Until(due) - spinSlack; wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-timer.C:
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for time.Now().Before(due) {
			runtime.Gosched()
		}
		send(k, due)
	}
	return nil
}

// PerSecondDue returns how many sends a schedule at rate puts in each of
// the first secs seconds.
func PerSecondDue(rate float64, secs int) []int {
	s := Schedule{T0: time.Unix(0, 0), Rate: rate}
	out := make([]int, secs)
	for i := range out {
		out[i] = s.Count(time.Duration(i+1)*time.Second) - s.Count(time.Duration(i)*time.Second)
	}
	return out
}
