package storm

import (
	"sync"
	"time"
)

// schedule runs work at given times in a fixed number of slots (one per
// registrant), at most one piece of work waiting in a slot, without a
// goroutine while it waits and without allocating for each piece: every
// slot has one timer, reset for its next work. Thousands of registrants
// waiting for their next renewal or back-off cost a timer each (about 100
// bytes), not a goroutine and its stack (8 KiB and more once a call has run
// on it), and a renewal costs no new timer. Work runs on a grid of grain
// (its time rounded up): 5000 registrants renewing every 3 s wake the
// harness 100 times a second with 17 renewals each, not 1700 times with
// one — each wake-up of an idle Go scheduler costs a spin, a poll and a
// futex, which was a third of the harness's CPU time. Safe for concurrent
// use.
type schedule struct {
	mu     sync.Mutex
	closed bool
	slots  []slot
	grain  time.Duration
	late   *Lateness      // when set, how late each piece of work started
	wg     sync.WaitGroup // work waiting or running
}

// grain is the schedules' grid: a tenth of the 100 ms the judge and the
// members' samples resolve.
const grain = 10 * time.Millisecond

// slot is one slot's timer and the work it waits to run.
type slot struct {
	tm      *time.Timer
	f       func()
	t       time.Time // when f asked to run
	waiting bool
}

func newSchedule(n int) *schedule { return &schedule{slots: make([]slot, n), grain: grain} }

// at runs f in slot i at t rounded up to the grain (at once when that has
// passed) on a goroutine of its own, unless the schedule is stopped first. Work that still waits in
// the slot is replaced (the fleet schedules a slot's next work from its
// last, so none waits).
func (s *schedule) at(i int, t time.Time, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	sl := &s.slots[i]
	if !sl.waiting {
		s.wg.Add(1)
	}
	sl.f, sl.t, sl.waiting = f, t, true
	d := time.Until(t.Add(s.grain - 1).Truncate(s.grain))
	if sl.tm == nil {
		sl.tm = time.AfterFunc(d, func() { s.fire(i) })
		return
	}
	sl.tm.Reset(d)
}

// fire runs slot i's work (when some waits and the schedule still runs).
func (s *schedule) fire(i int) {
	s.mu.Lock()
	sl := &s.slots[i]
	if !sl.waiting {
		s.mu.Unlock()
		return
	}
	f, t, closed := sl.f, sl.t, s.closed
	sl.f, sl.waiting = nil, false
	s.mu.Unlock()
	defer s.wg.Done()
	if closed {
		return
	}
	if s.late != nil {
		s.late.add(max(time.Since(t), 0))
	}
	f()
}

// stop cancels the work still waiting and waits for the work running.
func (s *schedule) stop() {
	s.mu.Lock()
	s.closed = true
	for i := range s.slots {
		if sl := &s.slots[i]; sl.waiting && sl.tm.Stop() {
			sl.f, sl.waiting = nil, false
			s.wg.Done()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}
