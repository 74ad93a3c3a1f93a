package registry

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"sdchaos/clock"
)

// Strategy selects how due leases are collected; see the package comment
// for which views see stale state under each.
type Strategy int

// The expiry strategies. The zero value is Lazy.
const (
	// Lazy collects due instances when their service is looked up.
	Lazy Strategy = iota
	// Scan collects by a full pass over all instances every ScanInterval.
	Scan
	// Heap collects from a min-heap of deadlines, waking at the earliest one.
	Heap
)

// String returns "lazy", "scan" or "heap".
func (s Strategy) String() string {
	switch s {
	case Lazy:
		return "lazy"
	case Scan:
		return "scan"
	case Heap:
		return "heap"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// DefaultScanInterval is the Scan strategy's interval when Options.ScanInterval is zero.
const DefaultScanInterval = time.Second

// ErrNotFound is returned by Heartbeat for an id that is not registered:
// never registered, deregistered, or already collected after its lease
// expired. The instance must Register again.
var ErrNotFound = errors.New("registry: instance not registered")

// ErrInvalid is returned by Register for an empty id or a non-positive ttl,
// and by New for bad options.
var ErrInvalid = errors.New("registry: invalid argument")

// Options configure a Registry. The zero value is a lazy registry on the
// real clock.
type Options struct {
	// Clock is the time source; nil means clock.Real().
	Clock clock.Clock
	// Strategy is the expiry strategy.
	Strategy Strategy
	// ScanInterval is the Scan strategy's pass interval (zero: DefaultScanInterval).
	ScanInterval time.Duration
	// Manual disables the background loop of Scan and Heap: expiry happens
	// only when the caller calls Expire (and, under Lazy, in Lookup).
	Manual bool
}

// Instance is a registered instance as returned by Lookup.
type Instance struct {
	// Service is the service the instance belongs to.
	Service string
	// ID identifies the instance across all services.
	ID string
	// Addr is where the instance can be reached.
	Addr string
	// TTL is the lease length.
	TTL time.Duration
	// Deadline is when the lease falls due unless renewed.
	Deadline time.Time
}

// Stats are counters of a Registry since New.
type Stats struct {
	// Instances is the number of registered instances (as Len).
	Instances int
	// HeapEntries is the size of the deadline heap, stale entries included
	// (Heap strategy only; zero otherwise).
	HeapEntries int
	// Expired counts instances collected because their lease was due.
	Expired uint64
	// Deregistered counts successful Deregister calls.
	Deregistered uint64
	// Passes counts expiry passes (Expire calls, by the loop or the caller).
	Passes uint64
}

type entry struct {
	service, id, addr string
	ttl               int64
	slot              int // index in Registry.slots, -1 once removed; guarded by Registry.mu
}

// slot holds one instance's deadline (ns since Registry.epoch). Deadlines
// live in a dense slice rather than in the entries so that a full scan
// streams through memory instead of chasing a pointer per instance.
type slot struct {
	deadline int64 // written atomically under the read lock by Heartbeat
	e        *entry
}

// Registry is an in-memory lease registry; create it with New and stop it
// with Close.
type Registry struct {
	clk      clock.Clock
	epoch    time.Time
	strategy Strategy

	mu        sync.RWMutex
	byID      map[string]*entry
	byService map[string]map[string]*entry
	slots     []slot
	heap      deadlineHeap
	armed     int64 // deadline the heap loop sleeps until (math.MaxInt64: none)
	stats     Stats

	wake      chan struct{}
	done      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// New returns a registry and starts its background expiry loop (Scan and
// Heap, unless Manual). It fails with ErrInvalid for an unknown strategy or
// a negative scan interval.
func New(o Options) (*Registry, error) {
	if o.Strategy < Lazy || o.Strategy > Heap {
		return nil, fmt.Errorf("%w: unknown strategy %d", ErrInvalid, int(o.Strategy))
	}
	if o.ScanInterval < 0 {
		return nil, fmt.Errorf("%w: scan interval (%s) is negative", ErrInvalid, o.ScanInterval)
	}
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.ScanInterval == 0 {
		o.ScanInterval = DefaultScanInterval
	}
	r := &Registry{
		clk: o.Clock, epoch: o.Clock.Now(), strategy: o.Strategy,
		byID: map[string]*entry{}, byService: map[string]map[string]*entry{},
		armed: math.MaxInt64, wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	r.startLoop(o)
	return r, nil
}

// Strategy returns the registry's expiry strategy.
func (r *Registry) Strategy() Strategy { return r.strategy }

// now returns the registry's time in ns since its epoch.
func (r *Registry) now() int64 { return int64(r.clk.Since(r.epoch)) }

// Register adds the instance id of service at addr with a lease of ttl
// starting now. Registering an id again replaces the old registration
// (service, address and ttl) and starts a fresh lease.
func (r *Registry) Register(service, id, addr string, ttl time.Duration) error {
	if id == "" || ttl <= 0 {
		return fmt.Errorf("%w: register id %q with ttl %s (want a non-empty id and ttl > 0)", ErrInvalid, id, ttl)
	}
	e := &entry{service: service, id: id, addr: addr, ttl: int64(ttl)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.byID[id]; old != nil {
		r.remove(old)
	}
	e.slot = len(r.slots)
	r.slots = append(r.slots, slot{deadline: r.now() + e.ttl, e: e})
	r.byID[id] = e
	svc := r.byService[service]
	if svc == nil {
		svc = map[string]*entry{}
		r.byService[service] = svc
	}
	svc[id] = e
	r.pushLocked(e)
	return nil
}

// Heartbeat renews id's lease: its deadline becomes now + ttl. It renews a
// lease that is already due as long as the registry has not collected it
// yet, and returns ErrNotFound once it has.
func (r *Registry) Heartbeat(id string) error {
	if r.strategy == Heap {
		r.mu.Lock()
		defer r.mu.Unlock()
	} else {
		r.mu.RLock()
		defer r.mu.RUnlock()
	}
	e := r.byID[id]
	if e == nil {
		return fmt.Errorf("heartbeat %q: %w", id, ErrNotFound)
	}
	atomic.StoreInt64(&r.slots[e.slot].deadline, r.now()+e.ttl)
	r.pushLocked(e)
	return nil
}

// Deregister removes id at once and reports whether it was registered.
func (r *Registry) Deregister(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.byID[id]
	if e == nil {
		return false
	}
	r.remove(e)
	r.stats.Deregistered++
	return true
}

// Lookup returns the instances of service in no particular order. Under
// Lazy it first collects the service's due instances; under Scan and Heap
// it returns every instance not yet collected, due or not.
func (r *Registry) Lookup(service string) []Instance {
	if r.strategy != Lazy {
		r.mu.RLock()
		defer r.mu.RUnlock()
		out, _ := r.listLocked(service, math.MinInt64)
		return out
	}
	now := r.now()
	r.mu.RLock()
	out, due := r.listLocked(service, now)
	r.mu.RUnlock()
	if due {
		r.collectService(service)
	}
	return out
}

// listLocked returns the instances of service whose deadline is after now,
// and whether it skipped any.
func (r *Registry) listLocked(service string, now int64) ([]Instance, bool) {
	svc := r.byService[service]
	out := make([]Instance, 0, len(svc))
	due := false
	for _, e := range svc {
		d := r.deadline(e)
		if d <= now {
			due = true
			continue
		}
		out = append(out, r.instance(e, d))
	}
	return out, due
}

// collectService removes the due instances of one service (Lazy).
func (r *Registry) collectService(service string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for _, e := range r.byService[service] {
		if r.deadline(e) <= now {
			r.remove(e)
			r.stats.Expired++
		}
	}
}

func (r *Registry) instance(e *entry, deadline int64) Instance {
	return Instance{Service: e.service, ID: e.id, Addr: e.addr,
		TTL: time.Duration(e.ttl), Deadline: r.epoch.Add(time.Duration(deadline))}
}

// Len returns the number of registered instances, including due instances
// that have not been collected yet (see the package comment).
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byID)
}

// Stats returns the registry's counters.
func (r *Registry) Stats() Stats {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s := r.stats
	s.Instances = len(r.byID)
	s.HeapEntries = len(r.heap)
	return s
}

// deadline returns e's current deadline; the caller holds r.mu (either mode).
func (r *Registry) deadline(e *entry) int64 { return atomic.LoadInt64(&r.slots[e.slot].deadline) }

// remove unlinks e from the maps and from slots (the last slot moves into
// its place); a heap entry pointing at it becomes stale.
func (r *Registry) remove(e *entry) {
	last := len(r.slots) - 1
	r.slots[e.slot] = r.slots[last]
	r.slots[e.slot].e.slot = e.slot
	r.slots[last] = slot{}
	r.slots = r.slots[:last]
	e.slot = -1
	delete(r.byID, e.id)
	svc := r.byService[e.service]
	delete(svc, e.id)
	if len(svc) == 0 {
		delete(r.byService, e.service)
	}
}
