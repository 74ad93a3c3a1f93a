package storm

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestSchedule: work runs at its time, in the past at once, and rescheduled
// from itself in its slot (the slot's timer reused); stop cancels what
// waits and waits for what runs.
func TestSchedule(t *testing.T) {
	s := newSchedule(4)
	var ran, chained, late, started atomic.Int32
	s.at(0, time.Now().Add(-time.Second), func() { ran.Add(1) })
	var again func()
	again = func() {
		if chained.Add(1) < 3 {
			s.at(1, time.Now().Add(time.Millisecond), again)
		}
	}
	s.at(1, time.Now(), again)
	s.at(2, time.Now().Add(time.Hour), func() { late.Add(1) })
	slow := make(chan struct{})
	s.at(3, time.Now(), func() { started.Add(1); time.Sleep(50 * time.Millisecond); close(slow) })
	deadline := time.Now().Add(5 * time.Second)
	for (ran.Load() < 1 || chained.Load() < 3 || started.Load() < 1) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	s.stop()
	select {
	case <-slow:
	default:
		t.Error("stop returned before the running work finished")
	}
	if ran.Load() != 1 || chained.Load() != 3 || late.Load() != 0 {
		t.Errorf("ran %d, chained %d, late %d; want 1, 3, 0", ran.Load(), chained.Load(), late.Load())
	}
	s.at(0, time.Now(), func() { late.Add(1) })
	time.Sleep(10 * time.Millisecond)
	if late.Load() != 0 {
		t.Error("work scheduled after stop ran")
	}
}
