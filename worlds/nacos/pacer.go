package nacos

import (
	"context"
	"sync"
	"time"
)

// pace runs call open loop: call i is due at start + i/rate and runs on its own goroutine
// whatever earlier calls are doing, until end (or ctx ends); then it waits for the calls in
// flight.
func pace(ctx context.Context, start, end time.Time, rate float64, call func(due time.Time)) {
	period := time.Duration(float64(time.Second) / rate)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * period)
		if !due.Before(end) {
			return
		}
		t := time.NewTimer(time.Until(due))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wg.Add(1)
		go func() { defer wg.Done(); call(due) }()
	}
}
