package storm

import (
	"sync"
	"time"
)

// Lateness collects how late the registrants' scheduled attempts started
// (the harness's own delay: a wake-up of the scheduled work after the time
// the registrant asked for). Safe for concurrent use.
type Lateness struct {
	mu sync.Mutex
	ms []float64
}

func (l *Lateness) add(d time.Duration) {
	l.mu.Lock()
	l.ms = append(l.ms, float64(d)/float64(time.Millisecond))
	l.mu.Unlock()
}

// LateStats condenses a Lateness: how many attempts, and their lateness's
// median, 99th percentile and most, in ms.
type LateStats struct {
	N     int     `json:"n"`
	P50ms float64 `json:"p50_ms"`
	P99ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

// Stats condenses what was collected (zero when nothing was).
func (l *Lateness) Stats() LateStats {
	l.mu.Lock()
	xs := append([]float64(nil), l.ms...)
	l.mu.Unlock()
	if len(xs) == 0 {
		return LateStats{}
	}
	s := LateStats{N: len(xs), P50ms: nearestRank(xs, 0.5), P99ms: nearestRank(xs, 0.99)}
	s.MaxMs = xs[len(xs)-1] // sorted by nearestRank
	return s
}

// Worst returns the larger of a's and b's figures, and the sum of their
// counts (the shards of one run: percentiles do not add, so the merged
// figure is the worst shard's).
func (a LateStats) Worst(b LateStats) LateStats {
	return LateStats{N: a.N + b.N, P50ms: max(a.P50ms, b.P50ms), P99ms: max(a.P99ms, b.P99ms), MaxMs: max(a.MaxMs, b.MaxMs)}
}
