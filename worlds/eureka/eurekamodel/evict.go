package eurekamodel

import (
	"math/rand/v2"
	"sort"
	"time"
)

// Evict is one run of the EvictionTask: nothing happens unless
// isLeaseExpirationEnabled(); otherwise the expired leases (with the run's
// lateness added to every lease) are collected and at most
// size − (int)(size × percent) of them, chosen at random, are removed.
// Evictions are not replicated.
func (r *Registry) Evict() EvictionRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clk.Now()
	run := EvictionRun{At: offset(now), Skew: r.skew, RenewsLastMin: r.renewLst, Threshold: r.thresh,
		Expected: r.expected, Size: len(r.leases), Compensation: r.compensationLocked(now)}
	r.nextRun = now.Add(r.cfg.EvictionInterval)
	run.Enabled = r.expirationEnabledLocked()
	if run.Enabled {
		expired := r.expiredLocked(run.Compensation)
		run.Expired = len(expired)
		run.Limit = EvictionLimit(run.Size, r.cfg.RenewalPercent)
		for _, key := range pickRandom(r.rnd, expired, min(run.Expired, run.Limit)) {
			r.removeLocked(key, EventEvict, false)
			run.Evicted = append(run.Evicted, key)
		}
	}
	r.hist.Evictions = append(r.hist.Evictions, run)
	return run
}

// compensationLocked is EvictionTask.getCompensationTimeMs(): how much later
// than one interval after the previous run this run comes, on the monotonic
// clock (so a wall-clock step does not count), never negative.
func (r *Registry) compensationLocked(now time.Time) time.Duration {
	last := r.lastRun
	r.lastRun = now
	if last.IsZero() {
		return 0
	}
	return max(now.Sub(last)-r.cfg.EvictionInterval, 0)
}

// expiredLocked returns the keys of the expired leases, sorted (so the
// seeded choice is reproducible; the source walks a hash map).
func (r *Registry) expiredLocked(additional time.Duration) []string {
	wall := r.wall()
	var keys []string
	for k, l := range r.leases {
		if l.expired(wall, additional) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// EvictionLimit returns size − (int)(size × percent): how many leases one
// eviction run may remove.
func EvictionLimit(size int, percent float64) int {
	return size - int(float64(size)*percent)
}

// pickRandom chooses n of keys at random by the source's partial Knuth
// shuffle (swap i with a random j in [i, len)); keys is reordered.
func pickRandom(rnd *rand.Rand, keys []string, n int) []string {
	for i := 0; i < n; i++ {
		j := i + rnd.IntN(len(keys)-i)
		keys[i], keys[j] = keys[j], keys[i]
	}
	return keys[:n]
}
