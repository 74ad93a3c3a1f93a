package clock

import (
	"context"
	"sync"
	"time"
)

// WakeEvery is how often a WakeProbe sleeps and wakes.
const WakeEvery = 10 * time.Millisecond

// WakeStats is what a WakeProbe saw since it started or was last reset.
type WakeStats struct {
	// Wakes is the number of wake-ups; Late those later than SchedSlack.
	Wakes int `json:"wakes"`
	Late  int `json:"late"`
	// Worst is the latest wake-up's lateness; WorstDue when it was due.
	Worst    time.Duration `json:"worst_ns"`
	WorstDue time.Time     `json:"worst_due"`
}

// WakeProbe measures a process's own scheduling on the real clock: it
// wakes every WakeEvery and counts the wake-ups that came later than
// SchedSlack, the allowance the timing bands take for one wake-up. A band
// that allows SchedSlack judged nothing in a span where a process it
// depends on woke later than that.
type WakeProbe struct {
	mu sync.Mutex
	st WakeStats
}

// Run wakes until ctx ends or until end (zero: no end).
func (p *WakeProbe) Run(ctx context.Context, end time.Time) {
	for due := time.Now().Add(WakeEvery); end.IsZero() || due.Before(end); {
		t := time.NewTimer(time.Until(due))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		now := time.Now() // when this goroutine ran again, not when the timer fired
		p.note(due, now.Sub(due))
		due = now.Add(WakeEvery) // a stall counts once, not once per slot it swallowed
	}
}

func (p *WakeProbe) note(due time.Time, late time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.Wakes++
	if late > SchedSlack {
		p.st.Late++
	}
	if late > p.st.Worst || p.st.Wakes == 1 {
		p.st.Worst, p.st.WorstDue = late, due
	}
}

// Stats returns what the probe saw since it started or was last reset.
func (p *WakeProbe) Stats() WakeStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st
}

// Reset forgets what the probe saw (a run's span starts).
func (p *WakeProbe) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st = WakeStats{}
}
