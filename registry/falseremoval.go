package registry

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// LossSim simulates, on virtual time, instances that are alive throughout
// and heartbeat at ticks 1..Ticks (registered at tick 0), each heartbeat
// lost independently with probability Loss, under the rule of article 40.2:
// at each tick the delivered heartbeats are applied first, then an instance
// expires if now − last heartbeat ≥ ttl; an expired instance registers
// again at its next delivered heartbeat. Every expiry is a false removal.
//
// With ttl ≤ k heartbeat intervals (k = TicksToExpire), an instance is
// removed once per maximal run of ≥ k consecutive lost heartbeats, at the
// run's k-th loss. So the simulation draws only those runs: the number of
// delivered heartbeats before the next loss is geometric and skipped in one
// draw, and a run's length needs one more uniform draw. Its cost is about
// Instances × Ticks × Loss × (1 − Loss) draws rather than Instances × Ticks.
type LossSim struct {
	// Instances is the number of simulated instances.
	Instances int
	// Ticks is the number of heartbeat intervals simulated.
	Ticks int
	// Loss is the probability that a heartbeat is lost, in [0, 1).
	Loss float64
	// Seed fixes every draw: the same LossSim gives the same LossRuns.
	Seed uint64
	// MaxRun caps the recorded run length: longer runs count as MaxRun.
	// Set it to the largest k of interest.
	MaxRun int
}

// LossRuns is the outcome of a LossSim: how many maximal runs of lost
// heartbeats of each length occurred over all instances.
type LossRuns struct {
	// ByLength[l] counts runs of exactly l lost heartbeats for 1 ≤ l <
	// MaxRun, and ByLength[MaxRun] those of MaxRun or more (a run cut off
	// by the end of the simulation counts with its length so far).
	ByLength []int64
}

// Removals returns the false removals at k: the runs of k or more lost
// heartbeats (k ≤ MaxRun).
func (lr LossRuns) Removals(k int) int64 {
	var n int64
	for l := max(k, 1); l < len(lr.ByLength); l++ {
		n += lr.ByLength[l]
	}
	return n
}

// TicksToExpire returns k, the number of consecutive lost heartbeats that
// expire a lease of ttl renewed every interval when expiry is checked at
// heartbeat ticks: the smallest k with k × interval ≥ ttl.
func TicksToExpire(ttl, interval time.Duration) int {
	return int((ttl + interval - 1) / interval)
}

// ApproxRemovals is the article's estimate instances × ticks × loss^k × (1 − loss):
// the chance, at any tick, that exactly the last k heartbeats were lost.
func ApproxRemovals(instances, ticks, k int, loss float64) float64 {
	return float64(instances) * float64(ticks) * math.Pow(loss, float64(k)) * (1 - loss)
}

// ExpectedRemovals is the exact expectation under LossSim's rule: a run of
// ≥ k losses starts at tick 1 with probability loss^k, and at each later
// tick s ≤ ticks−k+1 with probability (1 − loss)·loss^k (a delivered
// heartbeat at s−1, then k losses), so per instance
// loss^k + (ticks − k)·(1 − loss)·loss^k.
func ExpectedRemovals(instances, ticks, k int, loss float64) float64 {
	if k > ticks {
		return 0
	}
	pk := math.Pow(loss, float64(k))
	return float64(instances) * (pk + float64(ticks-k)*(1-loss)*pk)
}

// simChunk is how many instances share one random stream; streams are
// seeded by (Seed, chunk index), so results do not depend on scheduling.
const simChunk = 1024

// Run simulates all instances on GOMAXPROCS goroutines. It fails on bad
// parameters and returns ctx's error if ctx ends first.
func (s LossSim) Run(ctx context.Context) (LossRuns, error) {
	if s.Instances < 0 || s.Ticks < 0 || s.MaxRun < 1 || !(s.Loss >= 0 && s.Loss < 1) {
		return LossRuns{}, fmt.Errorf("%w: loss simulation %+v", ErrInvalid, s)
	}
	chunks := (s.Instances + simChunk - 1) / simChunk
	var next atomic.Int64
	var mu sync.Mutex
	total := make([]int64, s.MaxRun+1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			hist := make([]int64, s.MaxRun+1)
			for c := int(next.Add(1) - 1); c < chunks && ctx.Err() == nil; c = int(next.Add(1) - 1) {
				s.chunk(c, hist)
			}
			mu.Lock()
			defer mu.Unlock()
			for l, n := range hist {
				total[l] += n
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return LossRuns{}, fmt.Errorf("loss simulation: %w", err)
	}
	return LossRuns{ByLength: total}, nil
}

// chunk adds the loss runs of chunk c's instances to hist.
func (s LossSim) chunk(c int, hist []int64) {
	rng, m := s.chunkRand(c), s.model()
	for range s.chunkLen(c) {
		last := 0 // the last delivered tick (registration at 0)
		for {
			start, n, ok := m.nextRun(rng, last)
			if !ok {
				break
			}
			hist[min(n, s.MaxRun)]++
			last = start + n // the run is maximal: the tick after it is delivered
		}
	}
}

func (s LossSim) chunkRand(c int) *rand.Rand {
	return rand.New(rand.NewPCG(s.Seed, uint64(c)))
}

func (s LossSim) chunkLen(c int) int { return min(simChunk, s.Instances-c*simChunk) }

func (s LossSim) model() lossModel {
	return lossModel{ticks: s.Ticks, loss: s.Loss, logKeep: math.Log1p(-s.Loss)}
}

// lossModel draws one instance's heartbeat losses run by run.
type lossModel struct {
	ticks   int
	loss    float64
	logKeep float64 // ln(1 − loss)
}

// nextRun draws the next maximal run of lost heartbeats after tick last,
// which was delivered: its first tick and its length (cut off at ticks).
// ok is false when no further loss falls within ticks.
func (m lossModel) nextRun(rng *rand.Rand, last int) (start, n int, ok bool) {
	if m.loss == 0 {
		return 0, 0, false
	}
	// Delivered heartbeats before the next loss: geometric, by inversion.
	skip := math.Floor(math.Log(1-rng.Float64()) / m.logKeep)
	if skip >= float64(m.ticks-last) {
		return 0, 0, false
	}
	start = last + int(skip) + 1
	// P(length > j) = loss^j: one uniform decides the whole length.
	u := rng.Float64()
	n = 1
	for p := m.loss; u < p && start+n <= m.ticks; p *= m.loss {
		n++
	}
	return start, n, true
}
