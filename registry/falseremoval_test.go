package registry

import (
	"context"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"sdchaos/clock"
)

// lostTicks expands the simulation's draws into lost[i][t] (t in 1..Ticks),
// consuming the random streams in the same order as LossSim.Run.
func lostTicks(s LossSim) [][]bool {
	m := s.model()
	var lost [][]bool
	for c := 0; c*simChunk < s.Instances; c++ {
		rng := s.chunkRand(c)
		for range s.chunkLen(c) {
			row := make([]bool, s.Ticks+1)
			for last := 0; ; {
				start, n, ok := m.nextRun(rng, last)
				if !ok {
					break
				}
				for t := start; t < start+n; t++ {
					row[t] = true
				}
				last = start + n
			}
			lost = append(lost, row)
		}
	}
	return lost
}

// literalRemovals applies the article's rule tick by tick to a real
// Registry on a virtual clock: delivered heartbeats first (an expired
// instance registers again), then one expiry pass.
func literalRemovals(t *testing.T, lost [][]bool, ticks int, ttl time.Duration) int {
	v := clock.NewVirtual()
	r, err := New(Options{Clock: v, Strategy: Scan, Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range lost {
		r.Register("svc", strconv.Itoa(i), "x", ttl)
	}
	removed := 0
	for tick := 1; tick <= ticks; tick++ {
		v.AdvanceTo(clock.Epoch.Add(time.Duration(tick) * time.Second))
		for i, row := range lost {
			if row[tick] {
				continue
			}
			if err := r.Heartbeat(strconv.Itoa(i)); errors.Is(err, ErrNotFound) {
				r.Register("svc", strconv.Itoa(i), "x", ttl)
			}
		}
		removed += r.Expire()
	}
	return removed
}

func TestLossSimMatchesTheRuleOnARegistry(t *testing.T) {
	s := LossSim{Instances: 1500, Ticks: 120, Loss: 0.3, Seed: 7, MaxRun: 5}
	runs, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lost := lostTicks(s)
	for _, ttl := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second} {
		k := TicksToExpire(ttl, time.Second)
		want := literalRemovals(t, lost, s.Ticks, ttl)
		if got := runs.Removals(k); got != int64(want) {
			t.Errorf("ttl %v (k=%d): skip-ahead simulation %d removals, tick-by-tick registry %d", ttl, k, got, want)
		}
		if want == 0 {
			t.Errorf("ttl %v: no removals at all; the comparison proves nothing", ttl)
		}
	}
}

func TestLossSimIsDeterministicBySeed(t *testing.T) {
	s := LossSim{Instances: 5000, Ticks: 300, Loss: 0.1, Seed: 42, MaxRun: 5}
	a, _ := s.Run(context.Background())
	b, _ := s.Run(context.Background())
	s.Seed++
	c, _ := s.Run(context.Background())
	for l := range a.ByLength {
		if a.ByLength[l] != b.ByLength[l] {
			t.Fatalf("same seed, different runs: %v vs %v", a.ByLength, b.ByLength)
		}
	}
	if a.Removals(1) == c.Removals(1) && a.Removals(2) == c.Removals(2) {
		t.Fatalf("seeds 42 and 43 gave identical counts %v", a.ByLength)
	}
}

func TestLossSimMeanMatchesExactExpectation(t *testing.T) {
	const instances, ticks, loss = 20000, 300, 0.1
	runs, err := LossSim{Instances: instances, Ticks: ticks, Loss: loss, Seed: 3, MaxRun: 4}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 4; k++ {
		want := ExpectedRemovals(instances, ticks, k, loss)
		if got := float64(runs.Removals(k)); math.Abs(got-want) > 5*math.Sqrt(want)+5 {
			t.Errorf("k=%d: %v removals, exact expectation %.1f (5σ %.1f)", k, got, want, 5*math.Sqrt(want))
		}
	}
}

func TestTheoryFormulas(t *testing.T) {
	cases := []struct {
		k             int
		approx, exact float64
	}{{2, 2700, 2692}, {3, 270, 268.3}, {5, 2.7, 2.665}}
	for _, c := range cases {
		if got := ApproxRemovals(1000, 300, c.k, 0.1); math.Abs(got-c.approx) > 1e-9 {
			t.Errorf("ApproxRemovals k=%d = %v, want %v", c.k, got, c.approx)
		}
		if got := ExpectedRemovals(1000, 300, c.k, 0.1); math.Abs(got-c.exact) > 1e-9 {
			t.Errorf("ExpectedRemovals k=%d = %v, want %v", c.k, got, c.exact)
		}
	}
	if got := ExpectedRemovals(10, 3, 4, 0.5); got != 0 {
		t.Errorf("k beyond the ticks: %v, want 0", got)
	}
}

func TestTicksToExpire(t *testing.T) {
	for _, c := range []struct {
		ttl  time.Duration
		want int
	}{{500 * time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {2 * time.Second, 2},
		{2001 * time.Millisecond, 3}, {3 * time.Second, 3}, {5 * time.Second, 5}} {
		if got := TicksToExpire(c.ttl, time.Second); got != c.want {
			t.Errorf("TicksToExpire(%v, 1s) = %d, want %d", c.ttl, got, c.want)
		}
	}
}

func TestLossSimEdges(t *testing.T) {
	runs, err := LossSim{Instances: 100, Ticks: 100, Loss: 0, Seed: 1, MaxRun: 2}.Run(context.Background())
	if err != nil || runs.Removals(1) != 0 {
		t.Fatalf("loss 0: %v removals, err %v", runs.Removals(1), err)
	}
	for _, s := range []LossSim{{Loss: 1, MaxRun: 1}, {Loss: -0.1, MaxRun: 1}, {Loss: 0.1}} {
		if _, err := s.Run(context.Background()); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", s, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (LossSim{Instances: 1 << 20, Ticks: 3600, Loss: 0.1, MaxRun: 5}).Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
}

// BenchmarkLossSim1Mx3600 is the scale target of article 40.2: one million
// instances for an hour of 1 s heartbeats at 10 % loss (target ≤ 30 s).
func BenchmarkLossSim1Mx3600(b *testing.B) {
	s := LossSim{Instances: 1_000_000, Ticks: 3600, Loss: 0.1, Seed: 1, MaxRun: 5}
	b.ReportAllocs()
	for range b.N {
		if _, err := s.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
