package eurekamodel

import (
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"sdchaos/clock"
)

// Registry is one server's instance registry with the source's lease,
// renewal-rate, self-preservation and eviction rules. The clock is the
// server's monotonic model clock; lease timestamps use the wall clock, which
// is the monotonic clock plus any step (Step). Periodic tasks are added to a
// Tasks queue by Schedule and driven from outside. Safe for concurrent use.
type Registry struct {
	cfg  Config
	clk  clock.Clock
	name string

	mu       sync.Mutex
	skew     time.Duration
	rnd      *rand.Rand
	leases   map[string]*lease
	renewCur int64 // MeasuredRate currentBucket
	renewLst int64 // MeasuredRate lastBucket (renewsLastMin)
	expected int   // expectedNumberOfClientsSendingRenews
	thresh   int   // numberOfRenewsPerMinThreshold
	lastRun  time.Time
	nextRun  time.Time
	cache    responseCache
	hist     History
}

// NewRegistry returns an empty registry named name; seed drives the random
// choice of leases to evict (the source seeds with the current time).
func NewRegistry(name string, cfg Config, clk clock.Clock, seed uint64) *Registry {
	return &Registry{cfg: cfg, clk: clk, name: name, rnd: rand.New(rand.NewPCG(seed, 0xe0e6a)),
		leases: map[string]*lease{}, cache: responseCache{enabled: cfg.ResponseCache}, hist: History{Server: name}}
}

// Open is openForTraffic(count): the expected-client count becomes count —
// or OpenCount when the start-up sync found nothing, as Spring Cloud's
// InstanceRegistry does — and the threshold is recomputed.
func (r *Registry) Open(count int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if count == 0 {
		count = r.cfg.OpenCount
	}
	r.expected = count
	r.updateThresholdLocked()
	r.hist.Start = offset(r.clk.Now())
}

// Schedule adds the registry's periodic tasks to q, starting now, in the
// order the source starts its timers: the response-cache refresh (aligned to
// multiples of its interval), the renewal-threshold update, then — in
// postInit — the renewsLastMin bucket roll and the eviction task.
func (r *Registry) Schedule(q *Tasks) {
	now := r.clk.Now()
	up := r.cfg.CacheUpdate
	aligned := clock.Epoch.Add((offset(r.wallAt(now))/up)*up + up).Add(-r.skewNow())
	q.Every("cache-refresh", aligned, up, func(time.Time) { r.RefreshCache() })
	q.Every("threshold-update", now.Add(r.cfg.ThresholdUpdate), r.cfg.ThresholdUpdate, func(time.Time) { r.UpdateThreshold() })
	q.Every("renews-roll", now.Add(r.cfg.RenewsBucket), r.cfg.RenewsBucket, func(time.Time) { r.RollRenews() })
	r.mu.Lock()
	r.nextRun = now.Add(r.cfg.EvictionInterval)
	r.mu.Unlock()
	q.Every("eviction", r.nextRun, r.cfg.EvictionInterval, func(time.Time) { r.Evict() })
}

func (r *Registry) skewNow() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skew
}

func (r *Registry) wallAt(mono time.Time) time.Time { return mono.Add(r.skewNow()) }

// wall returns the wall clock (monotonic model time plus steps); r.mu held.
func (r *Registry) wall() time.Time { return r.clk.Now().Add(r.skew) }

// Step moves the server's wall clock by d (a clock step; d may be negative).
func (r *Registry) Step(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.skew += d
	r.event(EventStep, d.String(), false, false)
}

func (r *Registry) event(kind, id string, replicated, isNew bool) {
	r.hist.Events = append(r.hist.Events, Event{At: offset(r.clk.Now()), Kind: kind, ID: id, Replicated: replicated, New: isNew})
}

// Register is register(): a new lease (replacing any old one); a new
// instance raises the expected-client count by one if it is already above
// zero.
func (r *Registry) Register(inst Instance, replicated bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, existed := r.leases[inst.Key()]
	if !existed && r.expected > 0 {
		r.expected++
		r.updateThresholdLocked()
	}
	r.leases[inst.Key()] = newLease(inst, r.wall(), r.cfg.LeaseDuration)
	r.event(EventRegister, inst.Key(), replicated, !existed)
}

// Renew is renew(): false (404) for an unknown lease; otherwise it counts
// in the current renewals bucket and renews the lease.
func (r *Registry) Renew(app, id string, replicated bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.leases[app+"/"+id]
	if !ok {
		r.event(EventRenewUnknown, app+"/"+id, replicated, false)
		return false
	}
	r.renewCur++
	l.renew(r.wall(), r.cfg.LeaseBug)
	return true
}

// Cancel is cancel()/internalCancel(): false if unknown.
func (r *Registry) Cancel(app, id string, replicated bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.removeLocked(app+"/"+id, EventCancel, replicated)
}

// removeLocked drops a lease and lowers the expected-client count by one
// (if above zero), as internalCancel does for cancels and evictions.
func (r *Registry) removeLocked(key, kind string, replicated bool) bool {
	if _, ok := r.leases[key]; !ok {
		return false
	}
	delete(r.leases, key)
	r.event(kind, key, replicated, false)
	if r.expected > 0 {
		r.expected--
		r.updateThresholdLocked()
	}
	return true
}

// Lookup returns the instance registered under app/id.
func (r *Registry) Lookup(app, id string) (Instance, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.leases[app+"/"+id]
	if !ok {
		return Instance{}, false
	}
	return l.inst, true
}

func (r *Registry) currentLocked() []Instance {
	out := make([]Instance, 0, len(r.leases))
	for _, l := range r.leases {
		out = append(out, l.inst)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// Apps is the full fetch: the registry as the response cache serves it.
// Expired but not evicted leases are listed, as the source does.
func (r *Registry) Apps() []Instance {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cache.get(r.currentLocked)
}

// RefreshCache is the read-only cache update task.
func (r *Registry) RefreshCache() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cache.refresh(r.currentLocked)
}

// RollRenews is MeasuredRate's timer: renewsLastMin becomes the count of the
// bucket that just ended and a new bucket starts at zero.
func (r *Registry) RollRenews() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renewLst, r.renewCur = r.renewCur, 0
}

// updateThresholdLocked is updateRenewsPerMinThreshold():
// (int)(expected × (60 / expectedRenewInterval) × percent).
func (r *Registry) updateThresholdLocked() {
	r.thresh = Threshold(r.expected, r.cfg.ExpectedRenewInterval, r.cfg.RenewalPercent)
}

// Threshold returns (int)(expected × (60 / renewInterval seconds) × percent),
// evaluated in the source's order with float64 (Java double) arithmetic.
func Threshold(expected int, renewInterval time.Duration, percent float64) int {
	return int(float64(expected) * (60.0 / renewInterval.Seconds()) * percent)
}

// UpdateThreshold is updateRenewalThreshold(), the 15-minute task: the
// registry's instance count becomes the expected-client count if it is above
// percent × the current one, or if self-preservation is off.
func (r *Registry) UpdateThreshold() {
	r.mu.Lock()
	defer r.mu.Unlock()
	count := len(r.leases)
	adopt := float64(count) > r.cfg.RenewalPercent*float64(r.expected) || !r.cfg.SelfPreservation
	if adopt {
		r.expected = count
		r.updateThresholdLocked()
	}
	r.hist.Thresholds = append(r.hist.Thresholds, ThresholdRun{At: offset(r.clk.Now()), Count: count,
		Adopted: adopt, Expected: r.expected, Threshold: r.thresh})
}

// expirationEnabledLocked is isLeaseExpirationEnabled().
func (r *Registry) expirationEnabledLocked() bool {
	if !r.cfg.SelfPreservation {
		return true
	}
	return r.thresh > 0 && r.renewLst > int64(r.thresh)
}

// Stats returns the current state.
func (r *Registry) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Now: offset(r.clk.Now()), Size: len(r.leases), RenewsLastMin: r.renewLst, Threshold: r.thresh,
		Expected: r.expected, ExpirationEnabled: r.expirationEnabledLocked(), Skew: r.skew, NextEviction: offset(r.nextRun)}
}

// History returns a copy of what the registry recorded.
func (r *Registry) History() History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.hist
	h.Evictions = append([]EvictionRun(nil), h.Evictions...)
	h.Events = append([]Event(nil), h.Events...)
	h.Thresholds = append([]ThresholdRun(nil), h.Thresholds...)
	return h
}

// responseCache is ResponseCacheImpl's read-only map for the one key the
// model serves (the full registry): filled from the read-write view on first
// use, then replaced only by the refresh task. The read-write view is the
// registry itself, since the source invalidates it on every change.
type responseCache struct {
	enabled, loaded bool
	snapshot        []Instance
}

func (c *responseCache) get(load func() []Instance) []Instance {
	if !c.enabled {
		return load()
	}
	if !c.loaded {
		c.snapshot, c.loaded = load(), true
	}
	return append([]Instance(nil), c.snapshot...)
}

func (c *responseCache) refresh(load func() []Instance) {
	if c.enabled && c.loaded {
		c.snapshot = load()
	}
}
