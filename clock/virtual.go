package clock

import (
	"container/heap"
	"sync"
	"time"
)

// Virtual is a Clock that stands still until Advance or AdvanceTo moves it.
// Timers and tickers fire in deadline order while it advances; Now() seen
// from a firing timer's receiver is at least that timer's deadline. It is
// safe for concurrent use. The zero value is not usable; call NewVirtual.
type Virtual struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers waitHeap
}

// Epoch is the instant a new Virtual clock starts at.
var Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// NewVirtual returns a virtual clock set to Epoch.
func NewVirtual() *Virtual { return &Virtual{now: Epoch} }

// Now returns the virtual time.
func (v *Virtual) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// Since returns Now() - t.
func (v *Virtual) Since(t time.Time) time.Duration { return v.Now().Sub(t) }

// Sleep blocks until another goroutine advances the clock by d.
func (v *Virtual) Sleep(d time.Duration) { <-v.After(d) }

// After returns a channel that receives once the clock has advanced by d.
func (v *Virtual) After(d time.Duration) <-chan time.Time { return v.NewTimer(d).C() }

// NewTimer returns a timer firing when the clock reaches Now()+d.
func (v *Virtual) NewTimer(d time.Duration) Timer {
	t := &vtimer{clock: v, ch: make(chan time.Time, 1), index: -1}
	t.Reset(d)
	return t
}

// NewTicker returns a ticker firing every d of virtual time.
func (v *Virtual) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	t := &vtimer{clock: v, ch: make(chan time.Time, 1), period: d, index: -1}
	t.Reset(d)
	return vticker{t}
}

type vticker struct{ t *vtimer }

func (k vticker) C() <-chan time.Time { return k.t.ch }
func (k vticker) Stop()               { k.t.Stop() }

// Pending returns the number of armed timers and tickers.
func (v *Virtual) Pending() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.timers)
}

// Advance moves the clock forward by d, firing every timer that falls due,
// in deadline order, and returns the new time.
func (v *Virtual) Advance(d time.Duration) time.Time {
	return v.AdvanceTo(v.Now().Add(d))
}

// AdvanceTo moves the clock to t (never backwards), firing due timers in order.
func (v *Virtual) AdvanceTo(t time.Time) time.Time {
	for {
		v.mu.Lock()
		if len(v.timers) == 0 || v.timers[0].when.After(t) {
			if t.After(v.now) {
				v.now = t
			}
			now := v.now
			v.mu.Unlock()
			return now
		}
		w := heap.Pop(&v.timers).(*vtimer)
		w.index = -1
		if w.when.After(v.now) {
			v.now = w.when
		}
		fired := v.now
		if w.period > 0 {
			w.when = w.when.Add(w.period)
			v.seq++
			w.seq = v.seq
			heap.Push(&v.timers, w)
		}
		v.mu.Unlock()
		select {
		case w.ch <- fired:
		default:
		}
	}
}

// NextDeadline returns the earliest armed deadline and whether one exists.
func (v *Virtual) NextDeadline() (time.Time, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.timers) == 0 {
		return time.Time{}, false
	}
	return v.timers[0].when, true
}

type vtimer struct {
	clock  *Virtual
	ch     chan time.Time
	when   time.Time
	period time.Duration
	seq    uint64
	index  int
}

func (t *vtimer) C() <-chan time.Time { return t.ch }

func (t *vtimer) Stop() bool {
	v := t.clock
	v.mu.Lock()
	defer v.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&v.timers, t.index)
	t.index = -1
	return true
}

func (t *vtimer) Reset(d time.Duration) bool {
	v := t.clock
	v.mu.Lock()
	defer v.mu.Unlock()
	pending := t.index >= 0
	if pending {
		heap.Remove(&v.timers, t.index)
	}
	t.when = v.now.Add(d)
	v.seq++
	t.seq = v.seq
	heap.Push(&v.timers, t)
	return pending
}

type waitHeap []*vtimer

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if h[i].when.Equal(h[j].when) {
		return h[i].seq < h[j].seq
	}
	return h[i].when.Before(h[j].when)
}
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *waitHeap) Push(x any) {
	t := x.(*vtimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *waitHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	t.index = -1
	return t
}
