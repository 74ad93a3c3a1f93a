package nacosreal

import (
	"context"
	"sync"
	"time"
)

// Sample is one reading of what the server holds for a service.
type Sample struct {
	// At is when the answer arrived.
	At time.Time
	// Count is the number of instances listed (healthy or not); -1 when Err is set.
	Count int
	// Healthy is the number listed healthy.
	Healthy int
	// Err is the reading's error text ("" when it succeeded).
	Err string
}

// Watch samples the server's list of one service at a fixed period until its context ends.
type Watch struct {
	mu      sync.Mutex
	samples []Sample
	done    chan struct{}
}

// Watch starts sampling service every period (one reading at a time) until ctx ends.
func (s *Server) Watch(ctx context.Context, service string, period time.Duration) *Watch {
	w := &Watch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			w.add(s.sample(ctx, service))
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (s *Server) sample(ctx context.Context, service string) Sample {
	list, err := s.Instances(ctx, service)
	if err != nil {
		return Sample{At: time.Now(), Count: -1, Err: err.Error()}
	}
	n := 0
	for _, in := range list {
		if in.Healthy {
			n++
		}
	}
	return Sample{At: time.Now(), Count: len(list), Healthy: n}
}

func (w *Watch) add(s Sample) {
	w.mu.Lock()
	w.samples = append(w.samples, s)
	w.mu.Unlock()
}

// Samples returns a copy of the readings so far, oldest first.
func (w *Watch) Samples() []Sample {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Sample(nil), w.samples...)
}

// Wait blocks until the watch has stopped (its context ended) and returns every reading.
func (w *Watch) Wait() []Sample {
	<-w.done
	return w.Samples()
}

// FirstAtMost returns the first reading at or after from whose Count is at most n, and
// whether there is one (e.g. n = 0: when the server dropped the last instance).
func FirstAtMost(samples []Sample, from time.Time, n int) (Sample, bool) {
	for _, s := range samples {
		if !s.At.Before(from) && s.Count >= 0 && s.Count <= n {
			return s, true
		}
	}
	return Sample{}, false
}
