package eureka

import (
	"context"
	"time"

	"sdchaos/clock"
)

// waitHolding waits until the client's cache holds at least n instances,
// at most limit, and says how long it waited; a client still short of them
// then starts anyway (the world's ready check records what it holds).
func (s *realScheduler) waitHolding(ctx context.Context, r *Eureka, n int, limit time.Duration) error {
	if n <= 0 {
		return nil
	}
	start := time.Now()
	for s.holding() < n && time.Since(start) < limit {
		if err := clock.SleepFor(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	r.env.Printf("the Java client %s holds %d of %d instances %.1f s after its first fetch", s.name, s.holding(), n, time.Since(start).Seconds())
	return nil
}

// holding is how many instances the client's cache holds.
func (s *realScheduler) holding() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
}
