package eurekamodel

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"sdchaos/clock"
)

// vrig is a registry on a virtual clock with its periodic tasks.
type vrig struct {
	v *clock.Virtual
	r *Registry
	q *Tasks
}

func newVrig(cfg Config, seed uint64) *vrig {
	v := clock.NewVirtual()
	r := NewRegistry("s1", cfg, v, seed)
	r.Open(0)
	q := &Tasks{}
	r.Schedule(q)
	return &vrig{v: v, r: r, q: q}
}

// to advances the virtual clock to model time d, running due tasks on time.
func (g *vrig) to(d time.Duration) {
	target := clock.Epoch.Add(d)
	for {
		next, ok := g.q.Next()
		if !ok || next.After(target) {
			break
		}
		g.v.AdvanceTo(next)
		g.q.RunDue(next)
	}
	g.v.AdvanceTo(target)
}

func (g *vrig) register(n int) []Instance {
	var out []Instance
	for i := range n {
		inst := Instance{App: "WORKER", ID: fmt.Sprintf("w%02d", i), Addr: "x"}
		g.r.Register(inst, false)
		out = append(out, inst)
	}
	return out
}

func (g *vrig) renew(insts []Instance) {
	for _, in := range insts {
		g.r.Renew(in.App, in.ID, false)
	}
}

func TestThresholdArithmetic(t *testing.T) {
	tests := []struct {
		expected int
		interval time.Duration
		pct      float64
		want     int
	}{
		{51, 30 * time.Second, 0.85, 86}, // 51 × 2 × 0.85 = 86.7
		{50, 30 * time.Second, 0.85, 85},
		{1, 30 * time.Second, 0.85, 1}, // 1.7
		{0, 30 * time.Second, 0.85, 0},
		{3, 30 * time.Second, 0.85, 5}, // 5.1
		{10, 10 * time.Second, 0.85, 51},
		{20, 30 * time.Second, 0.5, 20},
	}
	for _, tc := range tests {
		if got := Threshold(tc.expected, tc.interval, tc.pct); got != tc.want {
			t.Errorf("Threshold(%d, %s, %g) = %d, want %d", tc.expected, tc.interval, tc.pct, got, tc.want)
		}
	}
}

func TestEvictionLimit(t *testing.T) {
	tests := []struct{ size, want int }{
		{50, 8}, {42, 7}, {35, 6}, {29, 5}, {20, 3}, {17, 3}, {7, 2}, {2, 1}, {1, 1}, {0, 0}, {100, 15},
	}
	for _, tc := range tests {
		if got := EvictionLimit(tc.size, 0.85); got != tc.want {
			t.Errorf("EvictionLimit(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

func TestExpectedClientCount(t *testing.T) {
	tests := []struct {
		name      string
		openCount int
		ops       func(r *Registry)
		want      int
	}{
		{"opens with Spring Cloud's 1", 1, func(*Registry) {}, 1},
		{"+1 per new lease", 1, func(r *Registry) {
			r.Register(Instance{App: "A", ID: "1"}, false)
			r.Register(Instance{App: "A", ID: "2"}, true) // replicated counts too
		}, 3},
		{"re-register is not new", 1, func(r *Registry) {
			r.Register(Instance{App: "A", ID: "1"}, false)
			r.Register(Instance{App: "A", ID: "1"}, false)
		}, 2},
		{"-1 per cancel, unknown cancel ignored", 1, func(r *Registry) {
			r.Register(Instance{App: "A", ID: "1"}, false)
			r.Cancel("A", "1", false)
			r.Cancel("A", "nope", false)
		}, 1},
		{"stays 0 when opened with 0", 0, func(r *Registry) {
			r.Register(Instance{App: "A", ID: "1"}, false)
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.OpenCount = tc.openCount
			r := NewRegistry("s", cfg, clock.NewVirtual(), 1)
			r.Open(0)
			tc.ops(r)
			if got := r.Stats().Expected; got != tc.want {
				t.Errorf("expected clients = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRenewsLastMinUsesFixedMinuteBuckets(t *testing.T) {
	g := newVrig(DefaultConfig(), 1)
	insts := g.register(3)
	g.to(10 * time.Second)
	g.renew(insts)
	g.r.Renew("WORKER", "w00", true) // a replicated renewal counts
	g.r.Renew("WORKER", "nope", false)
	g.to(59 * time.Second)
	if got := g.r.Stats().RenewsLastMin; got != 0 {
		t.Fatalf("renewsLastMin before the first minute ends = %d, want 0", got)
	}
	g.to(70 * time.Second)
	if got := g.r.Stats().RenewsLastMin; got != 4 {
		t.Fatalf("renewsLastMin after minute 1 = %d, want 4 (3 + 1 replicated, unknown not counted)", got)
	}
	g.renew(insts[:1])
	g.to(119 * time.Second)
	if got := g.r.Stats().RenewsLastMin; got != 4 {
		t.Fatalf("renewsLastMin moved inside minute 2: %d", got)
	}
	g.to(120 * time.Second)
	if got := g.r.Stats().RenewsLastMin; got != 1 {
		t.Fatalf("renewsLastMin after minute 2 = %d, want 1", got)
	}
	g.to(180 * time.Second)
	if got := g.r.Stats().RenewsLastMin; got != 0 {
		t.Fatalf("renewsLastMin after an empty minute = %d, want 0", got)
	}
}

// heartbeats renews every instance every 30 s in [from, to).
func (g *vrig) heartbeats(insts []Instance, from, to time.Duration) {
	for at := from; at < to; at += 30 * time.Second {
		g.to(at)
		g.renew(insts)
	}
}

func TestSelfPreservationEngagesAtFirstRunAfterAQuietMinute(t *testing.T) {
	g := newVrig(DefaultConfig(), 1)
	insts := g.register(10) // expected 11, threshold (int)(11 × 2 × 0.85) = 18
	if th := g.r.Stats().Threshold; th != 18 {
		t.Fatalf("threshold = %d, want 18", th)
	}
	g.heartbeats(insts, 15*time.Second, 180*time.Second) // 20 renewals in each of the first 3 minutes
	g.to(300 * time.Second)                              // then nothing (a partition from 165 s)
	runs := g.r.History().Evictions
	want := []bool{true, true, true, false, false} // 240 s: its minute [180, 240) had 0 ≤ 18
	var got []bool
	for _, run := range runs {
		got = append(got, run.Enabled)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("expiration enabled per run = %v, want %v (runs %+v)", got, want, runs)
	}
	if runs[2].RenewsLastMin != 20 || runs[3].RenewsLastMin != 0 || runs[3].At != 240*time.Second {
		t.Fatalf("runs at 180 s and 240 s: %+v, %+v", runs[2], runs[3])
	}
}

func TestSelfPreservationRefusesAtTheThresholdItself(t *testing.T) {
	g := newVrig(DefaultConfig(), 1)
	insts := g.register(10) // threshold 18
	g.to(10 * time.Second)
	g.renew(insts)
	g.renew(insts[:8]) // 18 renewals: not > 18
	g.to(60 * time.Second)
	if run := g.r.History().Evictions[0]; run.Enabled || run.RenewsLastMin != 18 {
		t.Fatalf("run with renewsLastMin = threshold: %+v, want refused", run)
	}
}

func evictedSet(t *testing.T, seed uint64) []string {
	t.Helper()
	cfg := DefaultConfig()
	cfg.SelfPreservation = false
	g := newVrig(cfg, seed)
	g.register(50)
	g.to(120 * time.Second) // never renewed: expired after 90 s; run at 120 s
	runs := g.r.History().Evictions
	if len(runs) != 2 || runs[0].Expired != 0 {
		t.Fatalf("runs = %+v", runs)
	}
	r := runs[1]
	if r.Expired != 50 || r.Limit != 8 || len(r.Evicted) != 8 || g.r.Stats().Size != 42 {
		t.Fatalf("run at 120 s: expired %d limit %d evicted %d size %d, want 50, 8, 8, 42",
			r.Expired, r.Limit, len(r.Evicted), g.r.Stats().Size)
	}
	return r.Evicted
}

func TestEvictionCapAndSeededChoice(t *testing.T) {
	a1, a2, b := evictedSet(t, 7), evictedSet(t, 7), evictedSet(t, 8)
	if !slices.Equal(a1, a2) {
		t.Errorf("same seed, different choice: %v vs %v", a1, a2)
	}
	if slices.Equal(a1, b) {
		t.Errorf("seeds 7 and 8 chose the same leases %v", a1)
	}
}

func TestEvictionDecaysByTheCapEachRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SelfPreservation = false
	g := newVrig(cfg, 3)
	g.register(50)
	g.to(20 * time.Minute)
	var sizes []int
	for _, run := range g.r.History().Evictions {
		if len(run.Evicted) > 0 {
			sizes = append(sizes, run.Size)
		}
	}
	want := []int{50, 42, 35, 29, 24, 20, 17, 14, 11, 9, 7, 5, 4, 3, 2, 1}
	if !slices.Equal(sizes, want) {
		t.Fatalf("sizes before each evicting run = %v, want %v", sizes, want)
	}
}

func TestLeaseExpiryWithAndWithoutTheBug(t *testing.T) {
	tests := []struct {
		bug         bool
		renewed     bool
		evictedAt   time.Duration // eviction run (every 60 s) that removes it
		description string
	}{
		{true, true, 240 * time.Second, "renewed at 10 s: lastUpdate 100 s, expires after 190 s"},
		{false, true, 120 * time.Second, "renewed at 10 s: expires after 100 s"},
		{true, false, 120 * time.Second, "never renewed: expires after 90 s"},
		{false, false, 120 * time.Second, "never renewed: expires after 90 s"},
	}
	for _, tc := range tests {
		t.Run(tc.description, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.SelfPreservation, cfg.LeaseBug = false, tc.bug
			g := newVrig(cfg, 1)
			insts := g.register(1)
			if tc.renewed {
				g.to(10 * time.Second)
				g.renew(insts)
			}
			g.to(5 * time.Minute)
			var at time.Duration
			for _, run := range g.r.History().Evictions {
				if len(run.Evicted) > 0 {
					at = run.At
				}
			}
			if at != tc.evictedAt {
				t.Fatalf("evicted at %s, want %s", at, tc.evictedAt)
			}
		})
	}
}

func TestLeaseBoundary(t *testing.T) {
	at := func(d time.Duration) time.Time { return clock.Epoch.Add(d) }
	l := newLease(Instance{}, clock.Epoch, 90*time.Second)
	if l.expired(at(90*time.Second), 0) || !l.expired(at(90*time.Second+time.Millisecond), 0) {
		t.Error("a never-renewed lease must expire just after 90 s")
	}
	l.renew(at(10*time.Second), true) // bug: lastUpdate = 100 s
	if l.expired(at(190*time.Second), 0) || !l.expired(at(190*time.Second+time.Millisecond), 0) {
		t.Error("bug: a lease renewed at 10 s must expire just after 190 s")
	}
	if l.expired(at(200*time.Second), 10*time.Second) || !l.expired(at(200*time.Second+time.Millisecond), 10*time.Second) {
		t.Error("the compensation must be added to the lease")
	}
	l.renew(at(10*time.Second), false)
	if l.expired(at(100*time.Second), 0) || !l.expired(at(100*time.Second+time.Millisecond), 0) {
		t.Error("no bug: a lease renewed at 10 s must expire just after 100 s")
	}
}

func TestClockStepExpiresLeasesOnlyWithoutTheBug(t *testing.T) {
	for _, bug := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.LeaseBug = bug
		g := newVrig(cfg, 1)
		insts := g.register(50)
		g.heartbeats(insts, 5*time.Second, 175*time.Second) // renewals at 155 s last
		g.to(175 * time.Second)
		g.r.Step(120 * time.Second) // just before the run at 180 s
		g.to(180 * time.Second)
		runs := g.r.History().Evictions
		last := runs[len(runs)-1]
		want := 0
		if !bug {
			want = 8 // every lease looks 120 s older: all expired, capped at 8
		}
		if !last.Enabled || len(last.Evicted) != want || last.Skew != 120*time.Second {
			t.Errorf("bug=%v: run after the step %+v, want enabled and %d evicted", bug, last, want)
		}
	}
}

func TestThresholdUpdateEvery15Minutes(t *testing.T) {
	tests := []struct {
		name         string
		sp           bool
		lost         int // leases dropped behind the registry's back (no cancel: expected stays 21)
		adopted      bool
		wantExpected int
		wantThresh   int
	}{
		{"count 20 > 0.85 × 21: adopted", true, 0, true, 20, 34},
		{"count 15 ≤ 17.85: kept", true, 5, false, 21, 35},
		{"self-preservation off: always adopted", false, 5, true, 15, 25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.SelfPreservation = tc.sp
			g := newVrig(cfg, 1)
			insts := g.register(20) // expected 21
			g.r.mu.Lock()
			for _, in := range insts[:tc.lost] {
				delete(g.r.leases, in.Key())
			}
			g.r.mu.Unlock()
			g.heartbeats(insts[tc.lost:], 10*time.Second, 15*time.Minute)
			g.to(15*time.Minute + time.Second)
			th := g.r.History().Thresholds
			if len(th) != 1 || th[0].At != 15*time.Minute || th[0].Adopted != tc.adopted || th[0].Expected != tc.wantExpected {
				t.Fatalf("threshold runs %+v", th)
			}
			if got := g.r.Stats().Threshold; got != tc.wantThresh {
				t.Fatalf("threshold after the update = %d, want %d", got, tc.wantThresh)
			}
		})
	}
}

func TestResponseCacheServesTheSnapshotUntilTheAlignedRefresh(t *testing.T) {
	g := newVrig(DefaultConfig(), 1)
	g.to(5 * time.Second)
	g.register(1)
	if n := len(g.r.Apps()); n != 1 {
		t.Fatalf("first fetch lists %d, want 1 (loaded on first use)", n)
	}
	g.to(10 * time.Second)
	g.register(2)
	if n := len(g.r.Apps()); n != 1 {
		t.Fatalf("fetch before the refresh lists %d, want the cached 1", n)
	}
	g.to(30 * time.Second) // refresh at the next multiple of 30 s
	if n := len(g.r.Apps()); n != 2 {
		t.Fatalf("fetch after the refresh lists %d, want 2", n)
	}
	cfg := DefaultConfig()
	cfg.ResponseCache = false
	g2 := newVrig(cfg, 1)
	g2.register(1)
	g2.r.Apps()
	g2.register(3)
	if n := len(g2.r.Apps()); n != 3 {
		t.Fatalf("without the cache a fetch lists %d, want 3", n)
	}
}

func TestTasksFixedDelayAndTieOrder(t *testing.T) {
	var q Tasks
	var ran []string
	t0 := clock.Epoch
	q.Every("roll", t0.Add(60*time.Second), 60*time.Second, func(time.Time) { ran = append(ran, "roll") })
	q.Every("evict", t0.Add(60*time.Second), 60*time.Second, func(time.Time) { ran = append(ran, "evict") })
	q.Every("other", t0.Add(90*time.Second), 60*time.Second, func(time.Time) { ran = append(ran, "other") })
	q.RunDue(t0.Add(59 * time.Second))
	q.RunDue(t0.Add(61 * time.Second)) // 1 s late: next becomes 121 s (fixed delay)
	if next, _ := q.Next(); !next.Equal(t0.Add(90 * time.Second)) {
		t.Fatalf("next = %v", next)
	}
	q.RunDue(t0.Add(120 * time.Second))
	q.RunDue(t0.Add(121 * time.Second))
	want := []string{"roll", "evict", "other", "roll", "evict"}
	if !slices.Equal(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
}
