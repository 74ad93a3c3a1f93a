package article40

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"sdchaos/history"
	"sdchaos/report"
)

// The cost model behind the scan-cost bands (see the Help): handling one
// due instance costs at most dueWalkSteps walk steps; from the smallest to
// the largest size a walk step may get up to scanCacheGrowth times dearer,
// a heap pop up to heapCacheGrowth times.
const (
	dueWalkSteps    = 500
	scanCacheGrowth = 10
	heapCacheGrowth = 3
)

// scanSlopeBand is the band of the scan's log–log slope over sizes: from a
// fixed cost of due × dueWalkSteps plus N steps, to linear with the walk
// step scanCacheGrowth times dearer at the largest size; ± slopeNoise.
func scanSlopeBand(sizes []float64, due int) (lo, hi float64) {
	eps, span := slopeNoise(sizes), spanOf(sizes)
	fixed := float64(due) * dueWalkSteps
	lo = slopeOf(sizes, func(n float64) float64 { return fixed + n }) - eps
	hi = 1 + math.Log(scanCacheGrowth)/math.Log(span) + eps
	return lo, hi
}

// walkSlopeBand is the band of the control's log–log slope: N walk steps,
// each up to scanCacheGrowth times dearer at the largest size; ± slopeNoise.
func walkSlopeBand(sizes []float64) (lo, hi float64) {
	eps, span := slopeNoise(sizes), spanOf(sizes)
	return 1 - eps, 1 + math.Log(scanCacheGrowth)/math.Log(span) + eps
}

// heapSlopeBand is the band of the heap's log–log slope over sizes: from
// flat to log₂ N with a pop heapCacheGrowth times dearer at the largest
// size; ± slopeNoise.
func heapSlopeBand(sizes []float64) (lo, hi float64) {
	eps, span := slopeNoise(sizes), spanOf(sizes)
	hi = slopeOf(sizes, math.Log2) + math.Log(heapCacheGrowth)/math.Log(span) + eps
	return -eps, hi
}

// ratioBand is the most the heap pass may cost relative to the scan at
// size n: due × dueWalkSteps against at least n walk steps.
func ratioBand(n, due int) float64 { return math.Min(1, float64(due)*dueWalkSteps/float64(n)) }

func spanOf(sizes []float64) float64 {
	lo, hi := report.MinMax(sizes)
	return hi / lo
}

// The article's Python timings (ms) at 10k, 100k and 1M with 100 due.
var (
	articleSizes    = []float64{10_000, 100_000, 1_000_000}
	articleScanMs   = []float64{0.25, 2.58, 25.58}
	articleHeapMs   = []float64{0.156, 0.385, 0.822}
	articleDue      = 100
	articleRatioAtM = 0.822 / 25.58
)

// strategyCost is what the passes of one strategy at one size measured.
type strategyCost struct {
	passes int
	ms     float64 // median pass
	// removed is the count farthest from --due over the passes.
	removed int
}

// sizeCost is one size's measurement.
type sizeCost struct {
	n                int
	scan, heap, walk strategyCost
}

// costMeasure is what an expiry-scan-cost run measured.
type costMeasure struct {
	sizes                                []sizeCost
	scanSlope, scanR2, heapSlope, heapR2 float64
	walkSlope, walkR2                    float64
	scanFit, heapFit, walkFit            []float64 // the sizes each fit used
}

// measure fills the measurement from the history's ops.
func (s *expiryScanCost) measure(h *history.History) costMeasure {
	passes := map[string]map[int][]history.Op{opScan: {}, opHeap: {}, opWalk: {}}
	var ns []int
	for _, op := range h.Ops {
		n, err := strconv.Atoi(op.Target)
		if byN, ok := passes[op.Caller]; ok && err == nil {
			byN[n] = append(byN[n], op)
			if !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
		}
	}
	slices.Sort(ns)
	var m costMeasure
	for _, n := range ns {
		m.sizes = append(m.sizes, sizeCost{n: n, scan: s.cost(passes[opScan][n], s.Due), heap: s.cost(passes[opHeap][n], s.Due),
			walk: s.cost(passes[opWalk][n], 0)})
	}
	m.walkFit, m.walkSlope, m.walkR2 = fitOf(m.sizes, func(c sizeCost) strategyCost { return c.walk })
	m.scanFit, m.scanSlope, m.scanR2 = fitOf(m.sizes, func(c sizeCost) strategyCost { return c.scan })
	m.heapFit, m.heapSlope, m.heapR2 = fitOf(m.sizes, func(c sizeCost) strategyCost { return c.heap })
	return m
}

// cost summarises the passes of one strategy at one size, each meant to remove want.
func (s *expiryScanCost) cost(ops []history.Op, want int) strategyCost {
	c := strategyCost{passes: len(ops), ms: math.NaN(), removed: want}
	if len(ops) == 0 {
		return c
	}
	ms := make([]float64, len(ops))
	for i, op := range ops {
		ms[i] = report.Ms(op.Latency())
		if abs(op.Count-want) > abs(c.removed-want) {
			c.removed = op.Count
		}
	}
	c.ms = report.Median(ms)
	return c
}

// fitOf fits one strategy's slope over the sizes it has passes at.
func fitOf(sizes []sizeCost, pick func(sizeCost) strategyCost) (ns []float64, slope, r2 float64) {
	var ms []float64
	for _, c := range sizes {
		if sc := pick(c); sc.passes > 0 {
			ns, ms = append(ns, float64(c.n)), append(ms, sc.ms)
		}
	}
	slope, r2 = logLogFit(ns, ms)
	return ns, slope, r2
}

func abs(x int) int { return max(x, -x) }

// Judge turns the recorded passes into the result (pure).
func (s *expiryScanCost) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.Title = fmt.Sprintf("article 40.3: cost of one expiry pass (%d instances due)", s.Due)
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m := s.measure(h)
	res.AddTable(s.table(m))
	s.metrics(res.Metrics, m)
	res.AddCheck(s.removedChecks(m)...)
	res.AddCheck(s.slopeChecks(m)...)
	res.AddCheck(s.ratioCheck(m))
	s.conclude(res, m)
	return res
}

func (s *expiryScanCost) metrics(mt report.Metrics, m costMeasure) {
	for _, c := range m.sizes {
		key := "@" + strconv.Itoa(c.n)
		mt["scan_ms"+key], mt["heap_ms"+key] = c.scan.ms, c.heap.ms
		mt["scan_removed"+key], mt["heap_removed"+key] = float64(c.scan.removed), float64(c.heap.removed)
	}
	mt["scan.slope"], mt["scan.r2"], mt["heap.slope"], mt["heap.r2"] = m.scanSlope, m.scanR2, m.heapSlope, m.heapR2
	mt["walk.slope"], mt["walk.r2"] = m.walkSlope, m.walkR2
	for _, c := range m.sizes {
		mt["walk_ms@"+strconv.Itoa(c.n)] = c.walk.ms
	}
	if len(m.sizes) > 0 {
		top := m.sizes[len(m.sizes)-1]
		mt["heap_over_scan"] = top.heap.ms / top.scan.ms
	}
}

func (s *expiryScanCost) table(m costMeasure) report.Table {
	t := report.Table{Title: fmt.Sprintf("One expiry pass, median of %d", s.Passes),
		Header: []string{"instances N", "scan all", "min-heap", "removed (scan)", "removed (heap)", "control: walk, nothing due",
			"article scan (Python)", "article heap (Python)"}}
	for _, c := range m.sizes {
		artScan, artHeap := "—", "—"
		if i := slices.Index(articleSizes, float64(c.n)); i >= 0 {
			artScan, artHeap = fmtMsCost(articleScanMs[i]), fmtMsCost(articleHeapMs[i])
		}
		t.Rows = append(t.Rows, []string{fmtThousands(c.n), fmtMsCost(c.scan.ms), fmtMsCost(c.heap.ms),
			strconv.Itoa(c.scan.removed), strconv.Itoa(c.heap.removed), fmtMsCost(c.walk.ms), artScan, artHeap})
	}
	fit := fmt.Sprintf("Fit of ln(median pass) on ln N: scan slope %.2f (R² %.3f), heap slope %.2f (R² %.3f), walk alone %.2f (R² %.3f); a cost ∝ N has slope 1, a constant one 0.",
		m.scanSlope, m.scanR2, m.heapSlope, m.heapR2, m.walkSlope, m.walkR2)
	if slices.ContainsFunc([]float64{m.scanSlope, m.scanR2, m.heapSlope, m.heapR2, m.walkSlope, m.walkR2}, math.IsNaN) {
		fit = "No fit of ln(median pass) on ln N: a strategy has passes at fewer than 2 sizes."
	}
	t.Notes = []string{fit,
		"Go, this machine; the article's figures are Python on the author's arm64 laptop. " +
			"Scan walks a dense array of deadlines; heap pops only the due entries (stale ones from renewals are dropped when popped).",
	}
	return t
}

// removedChecks: every pass of each strategy removes exactly --due, at every size.
func (s *expiryScanCost) removedChecks(m costMeasure) []report.Check {
	var cs []report.Check
	for _, c := range m.sizes {
		key := "@" + strconv.Itoa(c.n)
		for _, sc := range []struct {
			name string
			cost strategyCost
		}{{"scan_removed" + key, c.scan}, {"heap_removed" + key, c.heap}} {
			e := report.Exactly(sc.name, float64(s.Due), "").From("exactly --due instances are past their deadline at each pass").
				Says(report.SaysValue("100 removed", 100).OnlyIf(s.Due == articleDue)).SameCount()
			if sc.cost.passes == 0 {
				cs = append(cs, e.Invalid("no pass was recorded at this size"))
				continue
			}
			cs = append(cs, e.JudgeText(float64(sc.cost.removed), fmt.Sprintf("%d (worst of %d passes)", sc.cost.removed, sc.cost.passes)))
		}
	}
	return cs
}

// slopeChecks judge the log–log slopes against the cost model's bands.
func (s *expiryScanCost) slopeChecks(m costMeasure) []report.Check {
	artScan, _ := logLogFit(articleSizes, articleScanMs)
	artHeap, _ := logLogFit(articleSizes, articleHeapMs)
	at := s.Due == articleDue
	slope := func(name string, fit []float64, v, r2 float64, band func([]float64) (float64, float64), basis string, claim report.Claim) report.Check {
		if len(fit) < minSlopeSizes {
			lo, hi := band(floats(s.Sizes))
			return report.Band(name, lo, hi, "").Digits(2).From(basis).Says(claim).
				Invalid(fmt.Sprintf("passes at %d sizes; a slope needs at least %d", len(fit), minSlopeSizes))
		}
		lo, hi := band(fit)
		return agreeSlope(report.Band(name, lo, hi, "").Digits(2).From(basis).Says(claim), fit).
			JudgeText(v, fmt.Sprintf("%.2f (R² %.3f, %d sizes)", v, r2, len(fit)))
	}
	return []report.Check{
		slope("scan: log–log slope of pass cost vs N", m.scanFit, m.scanSlope, m.scanR2,
			func(f []float64) (float64, float64) { return scanSlopeBand(f, s.Due) },
			"linear walk: from due × 500 fixed steps + N, to N with steps 10× dearer at the largest N; ± one size off by 2×",
			report.SaysValue(fmt.Sprintf("grows linearly: 0.25 → 25.58 ms, slope %.2f", artScan), artScan).OnlyIf(at)),
		slope("scan control, nothing due: log–log slope of the walk vs N", m.walkFit, m.walkSlope, m.walkR2, walkSlopeBand,
			"N walk steps, each up to 10× dearer at the largest N: from 1 to 1 + ln 10 / ln(Nmax/Nmin); ± one size off by 2×",
			report.SaysValue(fmt.Sprintf("grows linearly: slope %.2f", artScan), artScan).OnlyIf(at)),
		slope("heap: log–log slope of pass cost vs N", m.heapFit, m.heapSlope, m.heapR2, heapSlopeBand,
			"due pops of log₂ N levels: from flat to log₂ N with pops 3× dearer at the largest N; ± one size off by 2×",
			report.SaysValue(fmt.Sprintf("touches only what is due: 0.156 → 0.822 ms, slope %.2f", artHeap), artHeap).OnlyIf(at)),
	}
}

// agreeSlope sets the agreement of a fitted slope with the article's: the
// slope shift of one size's median off by 2× over our sizes plus over the
// article's three.
func agreeSlope(e report.Expect, fit []float64) report.Expect {
	tol := slopeNoise(fit) + slopeNoise(articleSizes)
	return e.Within(tol, fmt.Sprintf("one size's median off by 2× (timing noise) shifts a fitted slope by %.2f over our sizes and %.2f over the article's three",
		slopeNoise(fit), slopeNoise(articleSizes))).Spread(langCause)
}

// langCause is why a cost figure may differ from the article's while both
// follow the cost model.
const langCause = "a pass's cost against its fixed part is the language's and machine's (Go here, Python on the article's arm64 laptop): " +
	"the cost model allows both slopes"

// ratioCheck: the heap costs at most due × 500 walk steps against the scan's N at the largest N.
func (s *expiryScanCost) ratioCheck(m costMeasure) report.Check {
	nMax := slices.Max(s.Sizes)
	if len(m.sizes) > 0 {
		nMax = m.sizes[len(m.sizes)-1].n
	}
	e := report.AtMost(fmt.Sprintf("heap / scan at N=%s", fmtThousands(nMax)), ratioBand(nMax, s.Due), "").Digits(4).
		From(fmt.Sprintf("heap ≤ due × 500 walk steps, scan ≥ N steps: ≤ %d × 500 / %d", s.Due, nMax)).
		Says(report.SaysValue("0.822 / 25.58 ms", articleRatioAtM).OnlyIf(s.Due == articleDue && nMax == 1_000_000)).
		WithinFactor(2, "each timing may be off by 2× (the slope bands' timing noise); the ratio of two: within a factor of 2").
		Spread(langCause)
	if len(m.sizes) == 0 || m.sizes[len(m.sizes)-1].scan.passes == 0 || m.sizes[len(m.sizes)-1].heap.passes == 0 {
		return e.Invalid("no passes of both strategies at the largest size")
	}
	top := m.sizes[len(m.sizes)-1]
	return e.Judge(top.heap.ms / top.scan.ms)
}

// conclude states the growth of both passes from the measured times.
func (s *expiryScanCost) conclude(res *report.Result, m costMeasure) {
	if len(m.sizes) < 2 {
		res.Conclude(fmt.Sprintf("Passes were recorded at %d sizes: too few to say how the cost grows.", len(m.sizes)))
		return
	}
	lo, hi := m.sizes[0], m.sizes[len(m.sizes)-1]
	res.Conclude(fmt.Sprintf("The full scan took %s at N=%s and %s at N=%s: ×%.3g for ×%.3g instances, log–log slope %.2f over %d sizes (R² %.3f); %.2f ns per instance at the largest N.",
		fmtMsCost(lo.scan.ms), fmtThousands(lo.n), fmtMsCost(hi.scan.ms), fmtThousands(hi.n), hi.scan.ms/lo.scan.ms,
		float64(hi.n)/float64(lo.n), m.scanSlope, len(m.scanFit), m.scanR2, hi.scan.ms*1e6/float64(hi.n)))
	if lo.heap.ms > 0.2*lo.scan.ms {
		res.Conclude(fmt.Sprintf("At N=%s removing the %d due instances is a large part of the scan: the heap pass, which does little but that, took %s against the scan's %s, so the scan grows less than N there.",
			fmtThousands(lo.n), s.Due, fmtMsCost(lo.heap.ms), fmtMsCost(lo.scan.ms)))
	}
	res.Conclude(fmt.Sprintf("The heap pass went from %s to %s (slope %.2f: it touches only the due entries); at N=%s it cost 1/%.0f of the scan.",
		fmtMsCost(lo.heap.ms), fmtMsCost(hi.heap.ms), m.heapSlope, fmtThousands(hi.n), hi.scan.ms/math.Max(hi.heap.ms, 1e-9)))
}

// fmtMsCost prints milliseconds with three significant digits.
func fmtMsCost(ms float64) string {
	if math.IsNaN(ms) {
		return "—"
	}
	return fmt.Sprintf("%.3g ms", ms)
}

// fmtThousands prints n with thousands separators: 1000000 → "1,000,000".
func fmtThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
