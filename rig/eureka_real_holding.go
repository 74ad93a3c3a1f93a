package rig

import (
	"context"
	"time"

	"sdchaos/clock"
)

// waitHolding waits until the client's cache holds at least n instances,
// at most limit; a client still short of them then starts anyway (the
// world's ready check records what it holds).
func (s *realScheduler) waitHolding(ctx context.Context, n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for n > 0 && s.holding() < n && time.Now().Before(deadline) {
		if err := clock.SleepFor(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// holding is how many instances the client's cache holds.
func (s *realScheduler) holding() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
}
