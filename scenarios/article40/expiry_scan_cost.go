//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"sdchaos/clock"
	lease "sdchaos/registry"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "expiry-scan-cost",
		Article: "article 40.3",
		Summary: "cost of one expiry pass: full scan vs min-heap, as the registry grows",
		Help: `Setup: for each N in --sizes, a registry (package registry, virtual clock, no
background loop) holds N instances of which exactly --due are past their deadline.
One expiry pass is timed by full scan (Scan strategy) and by heap pops (Heap
strategy), each as the median of --passes passes; between passes the due
instances are registered again and the clock moves on, outside the timing. Every
pass must remove exactly --due. The registries are built one at a time (1M
instances take a few hundred MB). --duration is not used.

Reproduced when: both remove exactly --due at every N; the scan grows roughly
linearly (at the largest N it costs ≥ 0.3 × the growth in N times its cost at the
smallest: 1M ≥ 30 × 10k by default); at the largest N the heap costs ≤ 1/20 of
the scan.`,
		New: func() Config { return defaultExpiryScanCost() },
	})
}

// expiryScanCostConfig holds the parameters of expiry-scan-cost.
type expiryScanCostConfig struct {
	Sizes  IntList
	Due    int
	Passes int
}

// defaultExpiryScanCost returns the article's setup: N = 10k, 100k, 1M with 100 due.
func defaultExpiryScanCost() *expiryScanCostConfig {
	return &expiryScanCostConfig{Sizes: IntList{10_000, 100_000, 1_000_000}, Due: 100, Passes: 15}
}

// Flags binds --sizes, --due and --passes.
func (c *expiryScanCostConfig) Flags(fs *flag.FlagSet) {
	fs.Var(&c.Sizes, "sizes", "comma-separated registry sizes N")
	fs.IntVar(&c.Due, "due", c.Due, "instances past their deadline at each pass")
	fs.IntVar(&c.Passes, "passes", c.Passes, "timed passes per strategy and size (the median is reported)")
}

// Validate requires a non-empty list of sizes, each above --due and at most 10M.
func (c *expiryScanCostConfig) Validate(Common) error {
	switch {
	case len(c.Sizes) == 0:
		return Usagef("--sizes is empty; give at least one size, e.g. --sizes 10000,100000,1000000")
	case c.Due < 1:
		return Usagef("--due (%d) must be at least 1", c.Due)
	case c.Passes < 1 || c.Passes > 1000:
		return Usagef("--passes (%d) must be within 1–1000", c.Passes)
	}
	for _, n := range c.Sizes {
		if n <= c.Due || n > 10_000_000 {
			return Usagef("--sizes: %d must be above --due (%d) and at most 10000000", n, c.Due)
		}
	}
	return nil
}

// passCost is the median pass time of one strategy at one size, and what
// the passes removed (the count farthest from due, if any differs).
type passCost struct {
	ms      float64
	removed int
}

// Run measures both strategies at every size.
func (c *expiryScanCostConfig) Run(ctx context.Context, env *Env) (*report.Result, error) {
	scan, heap := make([]passCost, len(c.Sizes)), make([]passCost, len(c.Sizes))
	for i, n := range c.Sizes {
		var err error
		if scan[i], err = c.measure(ctx, env, lease.Scan, n); err != nil {
			return nil, err
		}
		if heap[i], err = c.measure(ctx, env, lease.Heap, n); err != nil {
			return nil, err
		}
	}
	return c.judge(scan, heap), nil
}

// measure builds a registry of n instances and times --passes expiry passes.
func (c *expiryScanCostConfig) measure(ctx context.Context, env *Env, s lease.Strategy, n int) (passCost, error) {
	env.Printf("N=%d %s: building", n, s)
	v := clock.NewVirtual()
	r, err := lease.New(lease.Options{Clock: v, Strategy: s, Manual: true})
	if err != nil {
		return passCost{}, fmt.Errorf("N=%d %s: creating registry: %w", n, s, err)
	}
	if err := c.fill(r, n); err != nil {
		return passCost{}, fmt.Errorf("N=%d %s: building: %w", n, s, err)
	}
	runtime.GC() // the build's garbage is collected now, not during a timed pass
	ms := make([]float64, c.Passes)
	cost := passCost{removed: c.Due}
	for p := range ms {
		if err := ctx.Err(); err != nil {
			return passCost{}, err
		}
		if err := c.refill(r); err != nil {
			return passCost{}, fmt.Errorf("N=%d %s: pass %d: re-registering the due: %w", n, s, p+1, err)
		}
		v.Advance(time.Second)
		start := time.Now()
		removed := r.Expire()
		ms[p] = report.Ms(time.Since(start))
		if abs(removed-c.Due) > abs(cost.removed-c.Due) {
			cost.removed = removed
		}
	}
	cost.ms = report.Median(ms)
	return cost, nil
}

// fill registers the n − due instances that never fall due.
func (c *expiryScanCostConfig) fill(r *lease.Registry, n int) error {
	for i := range n - c.Due {
		if err := r.Register("svc", "live-"+strconv.Itoa(i), "127.0.0.1:9150", 24*time.Hour); err != nil {
			return err
		}
	}
	return nil
}

// refill registers the due instances with a 1 s ttl; the clock then moves 1 s.
func (c *expiryScanCostConfig) refill(r *lease.Registry) error {
	for i := range c.Due {
		if err := r.Register("svc", "due-"+strconv.Itoa(i), "127.0.0.1:9150", time.Second); err != nil {
			return err
		}
	}
	return nil
}

func abs(x int) int { return max(x, -x) }

// articleScanCost holds the article's Python figures (ms) per N: scan, heap.
var articleScanCost = map[int][2]string{
	10_000: {"0.25 ms", "0.156 ms"}, 100_000: {"2.58 ms", "0.385 ms"}, 1_000_000: {"25.58 ms", "0.822 ms"},
}

// judge builds the table, metrics, checks and conclusion.
func (c *expiryScanCostConfig) judge(scan, heap []passCost) *report.Result {
	res := report.NewResult("expiry-scan-cost")
	res.Title = fmt.Sprintf("article 40.3: cost of one expiry pass (%d instances due)", c.Due)
	t := report.Table{Title: fmt.Sprintf("One expiry pass, median of %d", c.Passes),
		Header: []string{"instances N", "scan all", "min-heap", "removed (scan)", "removed (heap)",
			"article scan (Python)", "article heap (Python)"}}
	for i, n := range c.Sizes {
		art, ok := articleScanCost[n]
		if !ok {
			art = [2]string{"—", "—"}
		}
		t.Rows = append(t.Rows, []string{fmtThousands(n), fmtMsCost(scan[i].ms), fmtMsCost(heap[i].ms),
			strconv.Itoa(scan[i].removed), strconv.Itoa(heap[i].removed), art[0], art[1]})
		key := "@" + strconv.Itoa(n)
		res.Metrics["scan_ms"+key], res.Metrics["heap_ms"+key] = scan[i].ms, heap[i].ms
		res.Metrics["scan_removed"+key], res.Metrics["heap_removed"+key] = float64(scan[i].removed), float64(heap[i].removed)
		res.AddCheck(report.Equal("scan_removed"+key, strconv.Itoa(c.Due), float64(scan[i].removed), float64(c.Due), ""),
			report.Equal("heap_removed"+key, strconv.Itoa(c.Due), float64(heap[i].removed), float64(c.Due), ""))
	}
	t.Notes = []string{"Go, this machine; the article's figures are Python on the author's arm64 laptop. " +
		"Scan walks a dense array of deadlines; heap pops only the due entries (stale ones from renewals are dropped when popped)."}
	res.AddTable(t)
	lo, hi := c.extremes()
	res.AddCheck(c.growthChecks(scan, heap, lo, hi)...)
	c.conclude(res, scan, heap, lo, hi)
	return res
}

// extremes returns the indexes of the smallest and largest size.
func (c *expiryScanCostConfig) extremes() (lo, hi int) {
	lo = slices.Index(c.Sizes, slices.Min(c.Sizes))
	hi = slices.Index(c.Sizes, slices.Max(c.Sizes))
	return lo, hi
}

// growthChecks: the scan grows at least 0.3× as fast as N; the heap costs ≤ 1/20 of the scan at the largest N.
func (c *expiryScanCostConfig) growthChecks(scan, heap []passCost, lo, hi int) []report.Check {
	var cs []report.Check
	if grow := float64(c.Sizes[hi]) / float64(c.Sizes[lo]); grow > 1 {
		cs = append(cs, report.AtLeast(fmt.Sprintf("scan growth N=%d / N=%d", c.Sizes[hi], c.Sizes[lo]), "102×",
			scan[hi].ms/scan[lo].ms, 0.3*grow, "×"))
	}
	cs = append(cs, report.AtMost(fmt.Sprintf("heap / scan at N=%d", c.Sizes[hi]), "0.032",
		heap[hi].ms/scan[hi].ms, 1.0/20, ""))
	return cs
}

// conclude states the growth of both passes from the measured times.
func (c *expiryScanCostConfig) conclude(res *report.Result, scan, heap []passCost, lo, hi int) {
	nLo, nHi := c.Sizes[lo], c.Sizes[hi]
	grow := float64(nHi) / float64(nLo)
	res.Conclude(fmt.Sprintf("The full scan took %s at N=%s and %s at N=%s: ×%.3g for ×%.3g instances, %.2f ns per instance at the largest N.",
		fmtMsCost(scan[lo].ms), fmtThousands(nLo), fmtMsCost(scan[hi].ms), fmtThousands(nHi), scan[hi].ms/scan[lo].ms, grow,
		scan[hi].ms*1e6/float64(nHi)))
	if heap[lo].ms > 0.2*scan[lo].ms {
		res.Conclude(fmt.Sprintf("At N=%s removing the %d due instances is a large part of the scan: the heap pass, which does little but that, took %s against the scan's %s, so the scan grows less than N there.",
			fmtThousands(nLo), c.Due, fmtMsCost(heap[lo].ms), fmtMsCost(scan[lo].ms)))
	}
	hlo, hhi := minMaxMs(heap)
	res.Conclude(fmt.Sprintf("The heap pass stayed within %s–%s across N (it touches only the due entries); at N=%s it cost 1/%.0f of the scan.",
		fmtMsCost(hlo), fmtMsCost(hhi), fmtThousands(nHi), scan[hi].ms/math.Max(heap[hi].ms, 1e-9)))
}

func minMaxMs(cs []passCost) (lo, hi float64) {
	ms := make([]float64, len(cs))
	for i, c := range cs {
		ms[i] = c.ms
	}
	return report.MinMax(ms)
}

// fmtMsCost prints milliseconds with three significant digits.
func fmtMsCost(ms float64) string { return fmt.Sprintf("%.3g ms", ms) }

// fmtThousands prints n with thousands separators: 1000000 → "1,000,000".
func fmtThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
