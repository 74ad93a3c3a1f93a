package registry

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"sdchaos/clock"
)

// harness drives a registry on a virtual clock and, for the strategies with
// a background loop, waits for the loop after every instant at which it
// should act, so that instants observed by the test are exact.
type harness struct {
	t        *testing.T
	r        *Registry
	v        *clock.Virtual
	interval time.Duration
}

func newHarness(t *testing.T, s Strategy, interval time.Duration) *harness {
	t.Helper()
	v := clock.NewVirtual()
	r, err := New(Options{Clock: v, Strategy: s, ScanInterval: interval})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return &harness{t: t, r: r, v: v, interval: interval}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// waitFor polls cond (real time) and fails the test after 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// advanceTo moves the clock to epoch+d, stopping at every scan tick or heap
// deadline on the way and waiting for the loop's pass there.
func (h *harness) advanceTo(d time.Duration) {
	h.t.Helper()
	target := clock.Epoch.Add(d)
	for {
		at, ok := h.nextLoopInstant()
		if !ok || at.After(target) {
			break
		}
		passes := h.r.Stats().Passes
		h.v.AdvanceTo(at)
		waitFor(h.t, fmt.Sprintf("pass at %v", at.Sub(clock.Epoch)), func() bool { return h.r.Stats().Passes > passes })
	}
	h.v.AdvanceTo(target)
}

// nextLoopInstant returns the next instant the background loop will act at.
func (h *harness) nextLoopInstant() (time.Time, bool) {
	switch h.r.Strategy() {
	case Scan:
		k := h.v.Now().Sub(clock.Epoch)/h.interval + 1
		return clock.Epoch.Add(k * h.interval), true
	case Heap:
		h.waitArmed()
		h.r.mu.RLock()
		defer h.r.mu.RUnlock()
		if h.r.armed == math.MaxInt64 {
			return time.Time{}, false
		}
		return h.r.epoch.Add(time.Duration(h.r.armed)), true
	}
	return time.Time{}, false
}

// waitArmed waits until the heap loop sleeps for the heap's earliest deadline.
func (h *harness) waitArmed() {
	h.t.Helper()
	waitFor(h.t, "heap loop armed", func() bool {
		h.r.mu.RLock()
		defer h.r.mu.RUnlock()
		if len(h.r.heap) == 0 {
			return h.r.armed == math.MaxInt64
		}
		return h.r.armed == h.r.heap[0].deadline
	})
}

func (h *harness) listed(service, id string) bool {
	return slices.ContainsFunc(h.r.Lookup(service), func(i Instance) bool { return i.ID == id })
}

func TestExpiryInstants(t *testing.T) {
	cases := []struct {
		name        string
		strategy    Strategy
		interval    time.Duration
		ttl         time.Duration
		heartbeatAt time.Duration // 0: none
		goneAt      time.Duration
	}{
		{"lazy", Lazy, 0, ms(2000), 0, ms(2000)},
		{"lazy renewed", Lazy, 0, ms(2000), ms(1500), ms(3500)},
		{"heap", Heap, 0, ms(2000), 0, ms(2000)},
		{"heap renewed (stale entry popped at 2s)", Heap, 0, ms(2000), ms(1500), ms(3500)},
		{"scan on a tick", Scan, ms(1000), ms(2000), 0, ms(2000)},
		{"scan between ticks", Scan, ms(1000), ms(2500), 0, ms(3000)},
		{"scan fast", Scan, ms(300), ms(1000), 0, ms(1200)},
		{"scan renewed", Scan, ms(1000), ms(2000), ms(1500), ms(4000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.strategy, c.interval)
			if err := h.r.Register("svc", "a", "127.0.0.1:9150", c.ttl); err != nil {
				t.Fatal(err)
			}
			if c.heartbeatAt > 0 {
				h.advanceTo(c.heartbeatAt)
				if err := h.r.Heartbeat("a"); err != nil {
					t.Fatalf("heartbeat at %v: %v", c.heartbeatAt, err)
				}
			}
			h.advanceTo(c.goneAt - time.Millisecond)
			if !h.listed("svc", "a") {
				t.Fatalf("gone at %v, want listed until %v", c.goneAt-time.Millisecond, c.goneAt)
			}
			h.advanceTo(c.goneAt)
			if h.listed("svc", "a") {
				t.Fatalf("still listed at %v", c.goneAt)
			}
			if s := h.r.Stats(); s.Expired != 1 || s.Instances != 0 {
				t.Fatalf("stats %+v, want 1 expired and none left", s)
			}
		})
	}
}

func TestLazyLenIsStaleUntilLookup(t *testing.T) {
	h := newHarness(t, Lazy, 0)
	h.r.Register("svc", "a", "x", ms(1000))
	h.r.Register("other", "b", "y", ms(1000))
	h.advanceTo(ms(5000))
	if n := h.r.Len(); n != 2 {
		t.Fatalf("Len before any lookup = %d, want 2 (stale)", n)
	}
	if got := h.r.Lookup("svc"); len(got) != 0 {
		t.Fatalf("Lookup(svc) = %v, want empty", got)
	}
	if n := h.r.Len(); n != 1 {
		t.Fatalf("Len after Lookup(svc) = %d, want 1 (other is never looked up)", n)
	}
	if err := h.r.Heartbeat("b"); err != nil {
		t.Fatalf("heartbeat of a due but uncollected lease: %v, want renewed", err)
	}
	if got := h.r.Lookup("other"); len(got) != 1 {
		t.Fatalf("Lookup(other) after renewal = %v", got)
	}
}

func TestScanLookupIsStaleBetweenPasses(t *testing.T) {
	h := newHarness(t, Scan, ms(1000))
	h.r.Register("svc", "a", "x", ms(1500))
	h.advanceTo(ms(1999))
	if !h.listed("svc", "a") || h.r.Len() != 1 {
		t.Fatal("due instance should stay listed until the 2 s pass")
	}
	h.advanceTo(ms(2000))
	if h.listed("svc", "a") || h.r.Len() != 0 {
		t.Fatal("instance listed after the 2 s pass")
	}
}

func TestDeregisterAndReRegistration(t *testing.T) {
	for _, s := range []Strategy{Lazy, Scan, Heap} {
		t.Run(s.String(), func(t *testing.T) {
			h := newHarness(t, s, ms(1000))
			h.r.Register("svc", "a", "x", ms(2000))
			if !h.r.Deregister("a") {
				t.Fatal("Deregister of a registered id reported false")
			}
			if h.r.Deregister("a") {
				t.Fatal("second Deregister reported true")
			}
			if h.listed("svc", "a") {
				t.Fatal("listed after Deregister")
			}
			if err := h.r.Heartbeat("a"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("heartbeat after deregister: %v, want ErrNotFound", err)
			}
			// Re-register with a longer ttl at 1 s: the old heap entry (2 s)
			// and the old scan deadline must not remove the new lease.
			h.r.Register("svc", "a", "x", ms(2000))
			h.advanceTo(ms(1000))
			h.r.Register("svc", "a", "x2", ms(3000))
			h.advanceTo(ms(3999))
			got := h.r.Lookup("svc")
			if len(got) != 1 || got[0].Addr != "x2" || !got[0].Deadline.Equal(clock.Epoch.Add(ms(4000))) {
				t.Fatalf("Lookup at 3.999 s = %+v, want x2 due at 4 s", got)
			}
			h.advanceTo(ms(4000))
			if h.listed("svc", "a") {
				t.Fatal("re-registered lease outlived its deadline")
			}
			if err := h.r.Heartbeat("a"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("heartbeat after expiry: %v, want ErrNotFound", err)
			}
			if s := h.r.Stats(); s.Expired != 1 || s.Deregistered != 1 {
				t.Fatalf("stats %+v, want 1 expired and 1 deregistered", s)
			}
		})
	}
}

func TestReRegisterMovesService(t *testing.T) {
	h := newHarness(t, Lazy, 0)
	h.r.Register("old", "a", "x", ms(1000))
	h.r.Register("new", "a", "x", ms(1000))
	if len(h.r.Lookup("old")) != 0 || len(h.r.Lookup("new")) != 1 || h.r.Len() != 1 {
		t.Fatal("re-registration under another service left the old one behind")
	}
}

func TestHeapKeepsStaleEntriesUntilPopped(t *testing.T) {
	r, err := New(Options{Clock: clock.NewVirtual(), Strategy: Heap, Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		r.Register("svc", fmt.Sprint(i), "x", time.Second)
	}
	for range 3 {
		for i := range 10 {
			r.Heartbeat(fmt.Sprint(i))
		}
	}
	if s := r.Stats(); s.HeapEntries != 40 || s.Instances != 10 {
		t.Fatalf("stats %+v, want 40 heap entries for 10 instances", s)
	}
}

func TestManualExpireRemovesExactlyTheDue(t *testing.T) {
	for _, s := range []Strategy{Lazy, Scan, Heap} {
		t.Run(s.String(), func(t *testing.T) {
			v := clock.NewVirtual()
			r, err := New(Options{Clock: v, Strategy: s, Manual: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 1000 {
				ttl := time.Hour
				if i%10 == 0 {
					ttl = time.Second
				}
				r.Register("svc", fmt.Sprint(i), "x", ttl)
			}
			v.Advance(time.Second)
			if n := r.Expire(); n != 100 {
				t.Fatalf("Expire removed %d, want 100", n)
			}
			if n := r.Expire(); n != 0 {
				t.Fatalf("second Expire removed %d, want 0", n)
			}
			if r.Len() != 900 {
				t.Fatalf("Len = %d, want 900", r.Len())
			}
		})
	}
}

func TestConcurrentHeartbeatsKeepLeases(t *testing.T) {
	for _, s := range []Strategy{Lazy, Scan, Heap} {
		t.Run(s.String(), func(t *testing.T) {
			const instances, workers, steps = 64, 4, 50
			h := newHarness(t, s, ms(100))
			for i := range instances {
				h.r.Register(fmt.Sprint("svc", i%4), fmt.Sprint(i), "x", ms(300))
			}
			for step := 1; step <= steps; step++ {
				h.advanceTo(ms(100 * step))
				heartbeatAll(t, h.r, instances, workers)
			}
			if st := h.r.Stats(); st.Expired != 0 || st.Instances != instances {
				t.Fatalf("stats %+v after renewing every 100 ms with ttl 300 ms", st)
			}
			h.advanceTo(ms(100*steps + 300))
			for i := range 4 {
				if got := h.r.Lookup(fmt.Sprint("svc", i)); len(got) != 0 {
					t.Fatalf("svc%d still lists %d instances after the ttl", i, len(got))
				}
			}
		})
	}
}

// heartbeatAll renews every instance from several goroutines at once, with
// lookups running beside them.
func heartbeatAll(t *testing.T, r *Registry, instances, workers int) {
	var wg sync.WaitGroup
	errs := make(chan error, instances)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < instances; i += workers {
				if err := r.Heartbeat(fmt.Sprint(i)); err != nil {
					errs <- err
				}
				r.Lookup(fmt.Sprint("svc", i%4))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("heartbeat: %v", err)
	}
}

func TestRegisterAndNewValidate(t *testing.T) {
	r, _ := New(Options{})
	defer r.Close()
	for _, c := range []struct {
		id  string
		ttl time.Duration
	}{{"", time.Second}, {"a", 0}, {"a", -time.Second}} {
		if err := r.Register("svc", c.id, "x", c.ttl); !errors.Is(err, ErrInvalid) {
			t.Errorf("Register(%q, %v) = %v, want ErrInvalid", c.id, c.ttl, err)
		}
	}
	for _, o := range []Options{{Strategy: Heap + 1}, {Strategy: Scan, ScanInterval: -1}} {
		if _, err := New(o); !errors.Is(err, ErrInvalid) {
			t.Errorf("New(%+v) = %v, want ErrInvalid", o, err)
		}
	}
}

func TestDeadlineHeapPopsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h deadlineHeap
	want := make([]int64, 500)
	for i := range want {
		want[i] = rng.Int64N(100)
		h.push(heapItem{deadline: want[i]})
	}
	slices.Sort(want)
	for i, w := range want {
		if got := h.pop().deadline; got != w {
			t.Fatalf("pop %d = %d, want %d", i, got, w)
		}
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	r, _ := New(Options{Strategy: Heap})
	r.Register("svc", "a", "x", time.Hour)
	r.Close()
	r.Close()
	if r.Len() != 1 {
		t.Fatal("Close dropped instances")
	}
}
