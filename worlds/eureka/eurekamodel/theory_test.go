package eurekamodel

import (
	"math"
	"testing"
	"time"
)

func TestCapRuns(t *testing.T) {
	tests := []struct {
		n       int
		percent float64
		want    int
	}{
		{50, 0.85, 16}, // 8, 7, 6, 5, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1
		{12, 0.85, 9},  // 2, 2, 2, 1, 1, 1, 1, 1, 1
		{1, 0.85, 1},
		{0, 0.85, 0},
		{10, 1, -1}, // nothing may ever be evicted
	}
	for _, tc := range tests {
		if got := CapRuns(tc.n, tc.percent); got != tc.want {
			t.Errorf("CapRuns(%d, %g) = %d, want %d", tc.n, tc.percent, got, tc.want)
		}
	}
}

func TestEvictAllBand(t *testing.T) {
	tests := []struct {
		bug    bool
		lo, hi float64 // minutes
	}{
		// 16 runs: 15 after the first; 18 × 0.5 s of lateness; ±6 s.
		{true, 17.4, 19.25},
		{false, 15.9, 17.75},
	}
	for _, tc := range tests {
		cfg := DefaultConfig()
		cfg.LeaseBug = tc.bug
		lo, hi := EvictAllBand(cfg, 50)
		if math.Abs(lo.Minutes()-tc.lo) > 1e-9 || math.Abs(hi.Minutes()-tc.hi) > 1e-9 {
			t.Errorf("bug=%v: %g–%g min, want %g–%g", tc.bug, lo.Minutes(), hi.Minutes(), tc.lo, tc.hi)
		}
	}
}

func TestBoundsOfTheListing(t *testing.T) {
	cfg := DefaultConfig()
	if got := EngageBound(cfg); got != 2*time.Minute {
		t.Errorf("EngageBound = %s, want 2m", got)
	}
	if got := StaleListingMax(cfg, 30*time.Second); got != 3*time.Minute {
		t.Errorf("StaleListingMax with the cache = %s, want 3m", got)
	}
	cfg.ResponseCache = false
	if got := StaleListingMax(cfg, 30*time.Second); got != 150*time.Second {
		t.Errorf("StaleListingMax without the cache = %s, want 2m30s", got)
	}
}

func TestPredictFalseEvictions(t *testing.T) {
	tests := []struct {
		bug    bool
		skew   time.Duration
		lo, hi int
	}{
		{true, 2 * time.Minute, 0, 0},   // ≤ 2 × 90 − 30
		{true, 150 * time.Second, 0, 0}, // exactly k × lease − renew
		{true, 170 * time.Second, 0, 8}, // between: depends on the ages
		{true, 181 * time.Second, 8, 8}, // > 180: all stale leases, capped
		{true, 4 * time.Minute, 8, 8},
		{false, 50 * time.Second, 0, 0}, // ≤ 90 − 30
		{false, 70 * time.Second, 0, 8}, // between
		{false, 91 * time.Second, 8, 8}, // just over the lease
		{false, 2 * time.Minute, 8, 8},
		{false, 10 * time.Minute, 8, 8},
	}
	for _, tc := range tests {
		cfg := DefaultConfig()
		cfg.LeaseBug = tc.bug
		lo, hi := PredictFalseEvictions(cfg, tc.skew, 5*time.Second, 50)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("bug=%v skew=%s: predicted %d–%d, want %d–%d", tc.bug, tc.skew, lo, hi, tc.lo, tc.hi)
		}
	}
	// With a long lead few leases are stale: the lower end drops below the cap.
	if lo, hi := PredictFalseEvictions(DefaultConfig(), 4*time.Minute, 25*time.Second, 12); lo != 0 || hi != 2 {
		t.Errorf("12 workers, lead 25 s: %d–%d, want 0–2", lo, hi)
	}
}

func TestTaskSuccess(t *testing.T) {
	tests := []struct {
		n, k, r int
		want    float64
	}{
		{50, 10, 0, 0.8},
		{50, 10, 1, 1 - 90.0/2450},
		{50, 10, 3, 1 - 5040.0/5527200},
		{50, 2, 3, 1},
		{50, 0, 0, 1},
	}
	for _, tc := range tests {
		if got := DistinctSuccess(tc.n, tc.k, tc.r); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("DistinctSuccess(%d, %d, %d) = %g, want %g", tc.n, tc.k, tc.r, got, tc.want)
		}
	}
	for _, tc := range []struct {
		dead float64
		r    int
		want float64
	}{{0.2, 0, 0.8}, {0.2, 1, 0.96}, {0.2, 3, 0.9984}} {
		if got := IndependentSuccess(tc.dead, tc.r); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("IndependentSuccess(%g, %d) = %g, want %g", tc.dead, tc.r, got, tc.want)
		}
	}
}

func TestFormatModel(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{20 * time.Minute, "20m"},
		{20*time.Minute + 400*time.Millisecond, "20m"},
		{time.Minute + 1520*time.Millisecond, "1m1.5s"},
		{2 * time.Minute, "2m"},
		{45 * time.Second, "45s"},
		{500 * time.Millisecond, "500ms"},
		{1234567 * time.Microsecond, "1.235s"},
	}
	for _, tc := range tests {
		if got := FormatModel(tc.d); got != tc.want {
			t.Errorf("FormatModel(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := WallNote(40, 20*time.Minute); got != "model time runs ×40: 20m of model time took 30.0 s of real time" {
		t.Errorf("WallNote = %q", got)
	}
}
