package storm

import (
	"sync"
	"time"
)

// schedule runs work at given times without a goroutine while it waits:
// thousands of registrants each waiting for their next renewal or back-off
// cost a timer each (about 100 bytes), not a goroutine and its stack
// (8 KiB and more once a call has run on it). Safe for concurrent use.
type schedule struct {
	mu     sync.Mutex
	closed bool
	timers map[*time.Timer]struct{}
	wg     sync.WaitGroup // work scheduled and not yet finished or stopped
}

func newSchedule() *schedule { return &schedule{timers: map[*time.Timer]struct{}{}} }

// at runs f at t (at once when t has passed) on a goroutine of its own,
// unless the schedule is stopped first.
func (s *schedule) at(t time.Time, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.wg.Add(1)
	var tm *time.Timer
	// The callback takes s.mu first, so it sees tm assigned even when t has
	// passed and it fires at once.
	tm = time.AfterFunc(time.Until(t), func() {
		defer s.wg.Done()
		s.mu.Lock()
		delete(s.timers, tm)
		closed := s.closed
		s.mu.Unlock()
		if !closed {
			f()
		}
	})
	s.timers[tm] = struct{}{}
}

// stop cancels the work still waiting and waits for the work running.
func (s *schedule) stop() {
	s.mu.Lock()
	s.closed = true
	for tm := range s.timers {
		if tm.Stop() {
			s.wg.Done()
		}
	}
	clear(s.timers)
	s.mu.Unlock()
	s.wg.Wait()
}
