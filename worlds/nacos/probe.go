package nacos

import (
	"context"
	"sync"
	"time"
)

// Probe is one reading of the server process and its readiness endpoint.
type Probe struct {
	At time.Time
	// ReadyErr is the readiness endpoint's failure ("" when it answered ok).
	ReadyErr string
	// CPU is the JVM's CPU time so far (user + system), read at CPUAt (before the readiness
	// call, which a busy server answers late: a rate of CPU use is taken between CPUAts, never
	// between Ats); RSS its resident set in bytes (−1 when the process could not be read).
	CPU   time.Duration
	CPUAt time.Time
	RSS   int64
}

// probeLoop reads the server's readiness, CPU time and RSS every period until ctx ends; the
// function it returns waits for the loop to stop and returns every reading.
func (s *Server) probeLoop(ctx context.Context, period time.Duration) func() []Probe {
	var (
		mu  sync.Mutex
		out []Probe
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			p := s.probe(ctx)
			if ctx.Err() != nil {
				return // the reading was cut short by the end, not by the server
			}
			mu.Lock()
			out = append(out, p)
			mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() []Probe {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return append([]Probe(nil), out...)
	}
}

// probe is one reading: the process first, then the readiness endpoint (its answer's time).
func (s *Server) probe(ctx context.Context) Probe {
	p := Probe{CPU: -1, RSS: -1}
	if d, err := s.CPUTime(); err == nil {
		p.CPU, p.CPUAt = d, time.Now()
	}
	if n, err := s.RSS(); err == nil {
		p.RSS = n
	}
	if err := s.Ready(ctx); err != nil {
		p.ReadyErr = err.Error()
	}
	p.At = time.Now()
	return p
}
