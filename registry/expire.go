package registry

import (
	"math"
	"time"

	"sdchaos/clock"
)

// Expire runs one expiry pass of the registry's strategy now and returns
// how many instances it collected: a pop of every due heap entry under Heap,
// a full scan of all instances under Scan and Lazy.
func (r *Registry) Expire() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	var n int
	if r.strategy == Heap {
		n = r.popDueLocked(now)
	} else {
		n = r.scanLocked(now)
	}
	r.stats.Expired += uint64(n)
	r.stats.Passes++
	return n
}

// scanLocked removes every instance whose deadline is at or before now.
func (r *Registry) scanLocked(now int64) int {
	n := 0
	for i := 0; i < len(r.slots); {
		if r.slots[i].deadline > now {
			i++
			continue
		}
		r.remove(r.slots[i].e) // moves the last slot to i: look at i again
		n++
	}
	return n
}

// popDueLocked pops heap entries due at now, dropping stale ones (the
// instance was renewed, re-registered or removed since the push).
func (r *Registry) popDueLocked(now int64) int {
	n := 0
	for len(r.heap) > 0 && r.heap[0].deadline <= now {
		it := r.heap.pop()
		if it.e.slot < 0 || r.deadline(it.e) != it.deadline {
			continue
		}
		r.remove(it.e)
		n++
	}
	return n
}

// pushLocked records e's current deadline in the heap (Heap strategy only)
// and wakes the loop if that deadline is earlier than the one it sleeps for.
func (r *Registry) pushLocked(e *entry) {
	if r.strategy != Heap {
		return
	}
	d := r.deadline(e)
	r.heap.push(heapItem{deadline: d, e: e})
	if d < r.armed {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// startLoop starts the background expiry loop, if the strategy has one. The
// ticker or timer is created here, synchronously, so the phase of later
// events relative to the scan passes is fixed by when New ran.
func (r *Registry) startLoop(o Options) {
	if o.Manual || r.strategy == Lazy {
		return
	}
	r.wg.Add(1)
	if r.strategy == Scan {
		go r.scanLoop(r.clk.NewTicker(o.ScanInterval))
	} else {
		go r.heapLoop(r.clk.NewTimer(time.Hour))
	}
}

// scanLoop runs a full pass at every tick of t.
func (r *Registry) scanLoop(t clock.Ticker) {
	defer r.wg.Done()
	defer t.Stop()
	for {
		select {
		case <-t.C():
			r.Expire()
		case <-r.done:
			return
		}
	}
}

// heapLoop sleeps until the earliest deadline in the heap or until an
// earlier one is pushed, then pops what is due. A spurious wake-up only
// costs an empty pass.
func (r *Registry) heapLoop(t clock.Timer) {
	defer r.wg.Done()
	defer t.Stop()
	for {
		r.arm(t)
		select {
		case <-t.C():
			r.Expire()
		case <-r.wake:
		case <-r.done:
			return
		}
	}
}

// arm sets t to fire at the heap's earliest deadline (or stops it when the
// heap is empty) and records that deadline for pushLocked.
func (r *Registry) arm(t clock.Timer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.heap) == 0 {
		r.armed = math.MaxInt64
		t.Stop()
		return
	}
	r.armed = r.heap[0].deadline
	t.Reset(time.Duration(r.armed - r.now()))
}

// Close stops the background loop and waits for it. The registry stays
// usable (as if Manual). Close is idempotent and always returns nil.
func (r *Registry) Close() error {
	r.closeOnce.Do(func() { close(r.done) })
	r.wg.Wait()
	return nil
}
