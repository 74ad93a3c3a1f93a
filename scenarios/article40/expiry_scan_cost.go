package article40

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/registry"
	"sdchaos/scenarios"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "expiry-scan-cost",
		Article: "article 40.3",
		Summary: "cost of one expiry pass: full scan vs min-heap, as the registry grows (log–log slope)",
		Help: `Setup: for each N in --sizes, a registry (package registry, virtual clock, no
background loop) holds N instances of which exactly --due are past their deadline. One expiry
pass is timed by full scan (Scan strategy) and by heap pops (Heap strategy), --passes times
each; between passes the due instances are registered again and the clock moves on, outside
the timing. Each pass is recorded as an op (caller = strategy, target = N, count = removed). The
passes are interleaved: all sizes of one strategy are built first (the defaults hold 1.44M
instances: a peak RSS of about 530 MiB here), then each round times one pass per size,
starting at a different size each round, so a slow spell of a shared machine touches every
size alike.

A control follows the scan's rounds: --passes rounds of scan passes with nothing due (the
walk alone, removing 0), which shows the walk's linearity without the fixed cost of removals.

Judged: every pass removes exactly --due (the control 0); the growth of the median pass cost with N as the
slope of ln cost against ln N (least squares over every size, gonum stat.LinearRegression; at
least 4 distinct sizes, fewer is a usage error: a slope through 2 or 3 points cannot tell a
curve from noise); the heap's cost against the scan's at the largest N.

Bands (cost model of the registry's passes, in "walk steps", one scan step over a 16-byte
deadline slot, ≥ 0.4 ns):
- handling one due instance (2 map deletes, a slot move, and for the heap a pop) costs at most
  500 walk steps (≤ 200 ns);
- scan = due × 500 (worst case) + N steps, each step up to 10× dearer at the largest N than at
  the smallest (the slot array leaving the caches: ≥ 0.4 ns cache-resident, ≤ 4 ns streamed
  from memory at ≥ 4 GB/s). Slope band: from the slope of due × 500 + N over the sizes, to
  1 + ln 10 / ln(Nmax/Nmin);
- heap = due × (removal + pop of log₂ N levels), a pop up to 3× dearer at the largest N (its
  deepest levels and the map buckets fall out of cache: a few misses on a ≈ 150 ns hot pop).
  Slope band: from 0 to the slope of log₂ N over the sizes + ln 3 / ln(Nmax/Nmin);
- both widened by the slope shift of one size's median off by 2× (timing noise on a shared
  machine): ln 2 × max|ln Nᵢ − mean| / Σ(ln Nᵢ − mean)². Sizes whose two bands overlap are a
  usage error (they cannot tell O(N) from O(log N));
- the control's walk is N steps, each up to 10× dearer at the largest N: slope band from 1 to
  1 + ln 10 / ln(Nmax/Nmin), widened by the same timing noise;
- heap / scan at the largest N ≤ due × 500 / Nmax (1/20 at the article's 100 due and 1M).

Article (Python, arm64 laptop; 10k, 100k, 1M, 100 due): scan 0.25, 2.58, 25.58 ms (slope 1.00);
heap 0.156, 0.385, 0.822 ms (slope 0.36); 100 removed at every size.`,
		Ground: scenarios.Computation, // no timeline, no process, no etcd
		New: func() scenarios.Config {
			return &expiryScanCost{Sizes: scenarios.IntList{10_000, 30_000, 100_000, 300_000, 1_000_000}, Due: 100, Passes: 31}
		},
	})
}

// expiryScanCost is article 40.3.
type expiryScanCost struct {
	Sizes  scenarios.IntList
	Due    int
	Passes int
}

// minSlopeSizes is the fewest distinct sizes a slope is fitted over.
const minSlopeSizes = 4

// The scan-cost strategies' op names.
const (
	opScan = "scan"
	opHeap = "heap"
	// opWalk is a scan pass with nothing due: the walk alone, the control
	// that shows the scan's linearity without the fixed cost of removals.
	opWalk = "scan-walk"
)

func (s *expiryScanCost) Flags(fs *flag.FlagSet) {
	fs.Var(&s.Sizes, "sizes", "comma-separated registry sizes N (at least 4 distinct)")
	fs.IntVar(&s.Due, "due", s.Due, "instances past their deadline at each pass")
	fs.IntVar(&s.Passes, "passes", s.Passes, "timed passes per strategy and size (the median is judged)")
}

func (s *expiryScanCost) Validate(scenarios.Common) error {
	switch {
	case len(s.Sizes) < minSlopeSizes:
		return scenarios.Usagef("--sizes gives %d sizes (%v); the log–log slope needs at least %d distinct ones, e.g. --sizes 10000,30000,100000,300000,1000000",
			len(s.Sizes), s.Sizes.String(), minSlopeSizes)
	case s.Due < 1:
		return scenarios.Usagef("--due (%d) must be at least 1", s.Due)
	case s.Passes < 1 || s.Passes > 1000:
		return scenarios.Usagef("--passes (%d) must be within 1–1000", s.Passes)
	}
	for i, n := range s.Sizes {
		if n <= s.Due || n > 10_000_000 {
			return scenarios.Usagef("--sizes: %d must be above --due (%d) and at most 10000000", n, s.Due)
		}
		if slices.Contains(s.Sizes[:i], n) {
			return scenarios.Usagef("--sizes lists %d twice", n)
		}
	}
	sizes := floats(s.Sizes)
	_, heapHi := heapSlopeBand(sizes)
	if scanLo, _ := scanSlopeBand(sizes, s.Due); heapHi >= scanLo {
		return scenarios.Usagef("--sizes %s with --due %d cannot tell a linear scan (slope band from %.2f) from a heap (up to %.2f): widen the range of sizes or lower --due",
			s.Sizes.String(), s.Due, scanLo, heapHi)
	}
	return nil
}

// Run is the plan: for each strategy, the registries of every size are
// built, then timed in interleaved rounds (see rounds); the scan's rounds
// are followed by the control's.
func (s *expiryScanCost) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	rec := history.NewRecorder(time.Now())
	sizes := slices.Sorted(slices.Values(s.Sizes))
	for _, st := range []registry.Strategy{registry.Scan, registry.Heap} {
		if err := s.strategy(ctx, env, rec, st, sizes); err != nil {
			return nil, fmt.Errorf("%s: %w", st, err)
		}
	}
	h := rec.History() // no Timeline: the passes are measurements, not a timeline
	return &h, nil
}

// sized is a registry of n instances on its own virtual clock.
type sized struct {
	n int
	r *registry.Registry
	v *clock.Virtual
}

// strategy builds one registry per size for st and records the passes.
func (s *expiryScanCost) strategy(ctx context.Context, env *scenarios.Env, rec *history.Recorder, st registry.Strategy, sizes []int) error {
	regs := make([]sized, 0, len(sizes))
	for _, n := range sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		env.Printf("N=%d %s: building", n, st)
		g, err := s.build(st, n)
		if err != nil {
			return fmt.Errorf("N=%d: %w", n, err)
		}
		regs = append(regs, g)
	}
	runtime.GC() // the builds' garbage is collected now, not during a timed pass
	env.Printf("%s: %d rounds of one pass per size", st, s.Passes)
	if err := s.rounds(ctx, rec, regs, st.String(), true); err != nil {
		return err
	}
	if st != registry.Scan {
		return nil
	}
	env.Printf("%s: %d rounds of the control, nothing due", opWalk, s.Passes)
	return s.rounds(ctx, rec, regs, opWalk, false) // the walk alone
}

// build makes a registry of n instances, n − due of which never fall due.
func (s *expiryScanCost) build(st registry.Strategy, n int) (sized, error) {
	v := clock.NewVirtual()
	r, err := registry.New(registry.Options{Clock: v, Strategy: st, Manual: true})
	if err != nil {
		return sized{}, fmt.Errorf("creating the registry: %w", err)
	}
	if err := s.fill(r, n); err != nil {
		return sized{}, fmt.Errorf("building: %w", err)
	}
	return sized{n: n, r: r, v: v}, nil
}

// rounds records --passes rounds of one pass per registry, recorded as
// caller's ops; with due, the due instances are registered again before
// each pass (outside the timing). Round p starts at the p-th size (mod
// their count), so the passes of every size are spread over the whole
// run: a slow spell of a shared machine (seconds of another process's
// work) then touches every size alike instead of all passes of one size,
// which would tilt the slope (the random interleaving of Google
// Benchmark and asv, on the same grounds).
func (s *expiryScanCost) rounds(ctx context.Context, rec *history.Recorder, regs []sized, caller string, due bool) error {
	for p := range s.Passes {
		for k := range regs {
			if err := ctx.Err(); err != nil {
				return err
			}
			g := regs[(p+k)%len(regs)]
			if due {
				if err := s.refill(g.r); err != nil {
					return fmt.Errorf("N=%d pass %d: re-registering the due: %w", g.n, p+1, err)
				}
			}
			g.v.Advance(time.Second)
			timePass(rec, g.r, caller, g.n, p)
		}
	}
	return nil
}

// timePass times one expiry pass and records it as an op of caller at size n.
func timePass(rec *history.Recorder, r *registry.Registry, caller string, n, p int) {
	start := time.Now()
	removed := r.Expire()
	end := time.Now()
	rec.Add(history.Op{Caller: caller, Kind: history.OpSample, Target: strconv.Itoa(n), Seq: p, Scheduled: rec.Offset(start),
		Start: rec.Offset(start), End: rec.Offset(end), Count: removed, Outcome: history.OK})
}

// fill registers the n − due instances that never fall due.
func (s *expiryScanCost) fill(r *registry.Registry, n int) error {
	for i := range n - s.Due {
		if err := r.Register("svc", "live-"+strconv.Itoa(i), "127.0.0.1:9150", 24*time.Hour); err != nil {
			return err
		}
	}
	return nil
}

// refill registers the due instances with a 1 s ttl; the clock then moves 1 s.
func (s *expiryScanCost) refill(r *registry.Registry) error {
	for i := range s.Due {
		if err := r.Register("svc", "due-"+strconv.Itoa(i), "127.0.0.1:9150", time.Second); err != nil {
			return err
		}
	}
	return nil
}

func floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
