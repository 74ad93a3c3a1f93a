// Package storm drives a re-registration storm: many registrants that lost
// the registry re-register when it returns, either all at once or spread by
// back-off with jitter, and it measures the load they put on the registry.
package storm

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Backoff decides how long a registrant waits before attempt k (k = 0 is the
// first attempt after the link returns).
type Backoff interface {
	Delay(k int, r *rand.Rand) time.Duration
	String() string
}

// Immediate re-registers at once when the link returns and, after a failed
// attempt, retries like Nacos 2.x's reconnect loop: after min(k, 50) ×
// 100 ms, without jitter.
type Immediate struct{}

// Delay returns 0 for the first attempt, then min(k, 50) × 100 ms.
func (Immediate) Delay(k int, _ *rand.Rand) time.Duration {
	return time.Duration(min(k, 50)) * 100 * time.Millisecond
}

// String describes the policy.
func (Immediate) String() string {
	return "immediate: first attempt at once; retry k after min(k, 50) × 100 ms, no jitter (Nacos reconnect loop)"
}

// FullJitter is exponential back-off with full jitter: attempt k waits a
// uniform random time in [0, min(Cap, Base × 2^k)).
type FullJitter struct {
	Base, Cap time.Duration
}

// Delay draws attempt k's wait.
func (f FullJitter) Delay(k int, r *rand.Rand) time.Duration {
	window := f.Cap
	if k < 30 {
		window = min(f.Cap, f.Base<<k)
	}
	if window <= 0 {
		return 0
	}
	return time.Duration(r.Int64N(int64(window)))
}

// String describes the policy with its parameters.
func (f FullJitter) String() string {
	return fmt.Sprintf("jitter: attempt k waits uniform [0, min(%s, %s × 2^k)) (exponential back-off, full jitter)", f.Cap, f.Base)
}
