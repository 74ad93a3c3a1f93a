package eurekamodel

import (
	"math"
	"time"
)

// This file holds what the source's rules predict for the experiments: the
// bands the Eureka scenarios judge their measurements against. Each
// function is pure arithmetic over a Config, so the bands are tested here
// without running anything.

// CapRuns returns how many eviction runs it takes to empty a registry of n
// expired leases when each run may remove at most size − (int)(size ×
// percent) of the current size (AbstractInstanceRegistry.evict): 50 leases
// at 0.85 go 8, 7, 6, … in 16 runs. It returns -1 when a run may remove
// none (percent 1): the registry never empties.
func CapRuns(n int, percent float64) int {
	runs := 0
	for n > 0 {
		limit := EvictionLimit(n, percent)
		if limit <= 0 {
			return -1
		}
		n -= limit
		runs++
	}
	return runs
}

// LeaseFactor is how many lease durations a renewed lease lives: 2 with the
// source's renew bug (Lease.renew() stores now + duration as lastUpdate,
// and expiry adds the duration again), 1 with the intended rule.
func LeaseFactor(bug bool) time.Duration {
	if bug {
		return 2
	}
	return 1
}

// EngageBound is the latest time after every client stops renewing at
// which self-preservation must have engaged: the renewals bucket that
// holds the partition, or the next one, is the first at or below the
// threshold, and the next eviction run refuses
// (isLeaseExpirationEnabled: renewsLastMin > threshold). With the bucket
// as long as the eviction interval (Eureka's defaults, and the model,
// whose roll and eviction share one cadence) an eviction run follows each
// roll: two eviction intervals. Otherwise (real Eureka scaled: the 60 s
// bucket is hard-coded, the eviction interval scales) two buckets and one
// eviction interval. renewalThresholdUpdateIntervalMs (15 min) plays no part.
func EngageBound(cfg Config) time.Duration {
	if cfg.RenewsBucket == cfg.EvictionInterval {
		return 2 * cfg.EvictionInterval
	}
	return 2*cfg.RenewsBucket + cfg.EvictionInterval
}

// ExpiryAfterPartition bounds when the leases of clients cut off at time
// zero expire: each was renewed within one renew interval before, and a
// renewed lease lives LeaseFactor lease durations.
func ExpiryAfterPartition(cfg Config) (earliest, latest time.Duration) {
	life := LeaseFactor(cfg.LeaseBug) * cfg.LeaseDuration
	return life - cfg.RenewInterval - replicaSlack, life + replicaSlack
}

// CappedEvictions is how many of n expired leases a sequence of runs
// evicts: each run removes min(left, size − (int)(size × percent)) from a
// registry of size clients, which shrinks as it evicts.
func CappedEvictions(size, n, runs int, percent float64) int {
	out := 0
	for range runs {
		k := min(n-out, EvictionLimit(size-out, percent))
		if k <= 0 {
			break
		}
		out += k
	}
	return out
}

// Lateness is the allowance for one fixed-delay eviction run coming late
// on a shared host; a late run reschedules from when it ran, so lateness
// adds up over runs.
const Lateness = 500 * time.Millisecond

// replicaSlack allows for replicated renewals that arrive just after a
// partition began (a peer's batch delay and retries).
const replicaSlack = 6 * time.Second

// EvictAllBand is when registries without self-preservation must be empty
// after every one of workers clients stopped renewing at once: the first
// leases expire k × lease after their last renewal (each renewed within one
// renew interval before), all have by k × lease + one eviction interval,
// and the cap then needs CapRuns − 1 more runs. Both ends allow 6 s for
// replicated renewals arriving after the partition began; the upper end
// also allows Lateness per run. A registry that never empties (CapRuns
// −1) gets the band [max, max].
func EvictAllBand(cfg Config, workers int) (lo, hi time.Duration) {
	n := CapRuns(workers, cfg.RenewalPercent)
	if n < 0 {
		return math.MaxInt64, math.MaxInt64
	}
	k := LeaseFactor(cfg.LeaseBug)
	runs := time.Duration(max(n-1, 0))
	lo = k*cfg.LeaseDuration - cfg.RenewInterval + runs*cfg.EvictionInterval
	hi = k*cfg.LeaseDuration + cfg.EvictionInterval + runs*cfg.EvictionInterval
	return lo - replicaSlack, hi + replicaSlack + (runs+3)*Lateness
}

// StaleListingMax is how long after the partition heals a client fetching
// every fetch can still list an instance that died during it: the first
// eviction run with a full minute of renewals above the threshold comes
// within EngageBound (the same two renewals windows and the run after
// them), then the read-only response cache (if on) and the client's next
// fetch.
func StaleListingMax(cfg Config, fetch time.Duration) time.Duration {
	d := EngageBound(cfg) + fetch
	if cfg.ResponseCache {
		d += cfg.CacheUpdate
	}
	return d
}

// PredictFalseEvictions returns the range of false evictions the lease
// rule allows on a server whose wall clock steps forward by skew, lead
// before an eviction run, while every one of workers clients renews every
// renew interval. A lease last renewed a ago looks expired iff skew > k ×
// lease − a, with a < renew; leases renewed after the step are on the new
// clock. So none expire if skew ≤ k × lease − renew; if skew > k × lease,
// every lease not renewed since the step does (at least workers × (1 −
// lead/renew) − 2 of them), capped per run; in between, anything up to the
// cap.
func PredictFalseEvictions(cfg Config, skew, lead time.Duration, workers int) (lo, hi int) {
	k := LeaseFactor(cfg.LeaseBug)
	limit := EvictionLimit(workers, cfg.RenewalPercent)
	switch {
	case skew <= k*cfg.LeaseDuration-cfg.RenewInterval:
		return 0, 0
	case skew > k*cfg.LeaseDuration:
		stale := int(float64(workers)*(1-lead.Seconds()/cfg.RenewInterval.Seconds())) - 2
		return min(limit, max(stale, 0)), limit
	}
	return 0, limit
}

// IndependentSuccess is 1 − dead^(R+1): a task tried on R+1 workers, each
// picked independently, dead with probability dead.
func IndependentSuccess(dead float64, retries int) float64 {
	return 1 - math.Pow(dead, float64(retries+1))
}

// DistinctSuccess is the exact success of a task tried on R+1 distinct
// workers picked at random among n of which k are dead:
// 1 − C(k, R+1) / C(n, R+1).
func DistinctSuccess(n, k, retries int) float64 {
	p := 1.0
	for i := 0; i <= retries; i++ {
		if k-i <= 0 {
			return 1
		}
		p *= float64(k-i) / float64(n-i)
	}
	return 1 - p
}
