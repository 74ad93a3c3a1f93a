package article40

import (
	"fmt"
	"math"
	"slices"
	"time"

	"sdchaos/history"
	"sdchaos/registry"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// articleRemoval is the article's row for one ttl: its false removals and theory.
type articleRemoval struct{ removals, theory float64 }

// articleRemovals are the article's figures per ttl label.
var articleRemovals = map[string]articleRemoval{
	"1.5": {2652, 2700}, "2": {2652, 2700}, "3": {263, 270}, "5": {3, 2.7},
}

// removalRow is one ttl's measurement: both counts and their expectations.
type removalRow struct {
	ttl   time.Duration
	label string
	k     int
	// sim is the simulation's count; simTheory the article's formula and
	// simExact the exact expectation, both for the simulation's instances.
	sim                 int64
	simTheory, simExact float64
	// reg is the registry's count (as are rereg and down); regExact its expectation.
	reg, rereg, down int64
	regExact         float64
	hasReg           bool
}

// removalMeasure is what a ttl-false-removal run measured.
type removalMeasure struct {
	rec  removalRecord
	rows []removalRow
	// scale turns a simulation count into one for the registry's instances.
	scale float64
}

// measure fills the measurement from the history's Data.
func (s *ttlFalseRemoval) measure(h *history.History) (removalMeasure, string) {
	var m removalMeasure
	if err := h.DataInto(&m.rec); err != nil {
		return m, err.Error()
	}
	sim, reg := m.rec.Sim, m.rec.Registry
	if sim.Ticks < 1 || sim.Instances < 1 || len(sim.ByLength) < 2 {
		return m, "the simulation recorded no tick"
	}
	runs := registry.LossRuns{ByLength: sim.ByLength}
	if reg.Instances > 0 {
		m.scale = float64(reg.Instances) / float64(sim.Instances)
	}
	for _, ttl := range s.TTLs {
		k := registry.TicksToExpire(ttl, s.Heartbeat)
		r := removalRow{ttl: ttl, label: scenarios.SecondsLabel(ttl), k: k, sim: runs.Removals(min(k, len(sim.ByLength)-1)),
			simTheory: registry.ApproxRemovals(sim.Instances, sim.Ticks, k, sim.Loss),
			simExact:  registry.ExpectedRemovals(sim.Instances, sim.Ticks, k, sim.Loss)}
		if k > len(sim.ByLength)-1 { // longer than the run: never removed
			r.sim = 0
		}
		if i := slices.IndexFunc(reg.PerTTL, func(c registryCount) bool { return c.TTL == ttl }); i >= 0 {
			c := reg.PerTTL[i]
			r.reg, r.rereg, r.down, r.hasReg = c.Removals, c.Reregistrations, c.DownAtEnd, true
			r.regExact = registry.ExpectedRemovals(reg.Instances, reg.Ticks, k, sim.Loss)
		}
		m.rows = append(m.rows, r)
	}
	return m, ""
}

// articleSetup reports whether n instances over ticks have the article's setup.
func (s *ttlFalseRemoval) articleSetup(n, ticks int) bool {
	return n == 1000 && ticks == 300 && s.Heartbeat == time.Second && s.Loss == 0.1
}

// Judge turns the recorded counts into the result (pure).
func (s *ttlFalseRemoval) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.Events = h.Events
	m, why := s.measure(h)
	if why != "" {
		res.AddCheck(report.Band("simulation: false removals", 0, 0, "").Invalid(why))
		return res
	}
	sim, reg := m.rec.Sim, m.rec.Registry
	res.Title = fmt.Sprintf("article 40.2: ttl vs false removals (%d simulated and %d registry instances, %d heartbeats of %s, %g loss)",
		sim.Instances, reg.Instances, sim.Ticks, s.Heartbeat, sim.Loss)
	res.AddTable(s.table(m))
	for _, r := range m.rows {
		s.rowMetrics(res.Metrics, r)
		res.AddCheck(s.rowChecks(m, r)...)
	}
	res.AddCheck(s.reregCheck(m))
	s.conclude(res, m)
	return res
}

func (s *ttlFalseRemoval) rowMetrics(mt report.Metrics, r removalRow) {
	l := r.label
	mt["k@"+l], mt["removals@"+l], mt["theory@"+l], mt["exact@"+l] = float64(r.k), float64(r.sim), r.simTheory, r.simExact
	if r.hasReg {
		mt["registry_removals@"+l], mt["registry_reregistrations@"+l] = float64(r.reg), float64(r.rereg)
		mt["registry_exact@"+l] = r.regExact
	}
}

func (s *ttlFalseRemoval) table(m removalMeasure) report.Table {
	sim, reg := m.rec.Sim, m.rec.Registry
	t := report.Table{Title: "False removals of live instances",
		Header: []string{"ttl", "k (losses in a row)", fmt.Sprintf("simulation (%d)", sim.Instances), "exact expectation",
			"theory N×T×loss^k×(1−loss)", fmt.Sprintf("registry (%d)", reg.Instances), "registry expectation",
			"re-registrations", "article removals", "article theory"}}
	for _, r := range m.rows {
		art, ok := articleRemovals[r.label]
		artR, artT := "—", "—"
		if ok {
			artR, artT = report.Num(art.removals), fmt.Sprintf("%.1f", art.theory)
		}
		regC, regE, rereg := "—", "—", "—"
		if r.hasReg {
			regC, regE, rereg = fmt.Sprint(r.reg), fmt.Sprintf("%.1f", r.regExact), fmt.Sprint(r.rereg)
		}
		t.Rows = append(t.Rows, []string{r.label + " s", fmt.Sprint(r.k), fmt.Sprint(r.sim), fmt.Sprintf("%.1f", r.simExact),
			fmt.Sprintf("%.1f", r.simTheory), regC, regE, rereg, artR, artT})
	}
	t.Notes = []string{
		"k = ⌈ttl / heartbeat⌉: expiry is checked at heartbeat ticks, after that tick's heartbeats. The simulation counts every ttl on one loss pattern; the registry (one per ttl, fed the same delivered heartbeats) on another, independent one.",
		"Exact expectation = N × (loss^k + (T − k)(1 − loss)loss^k): k losses right after registration, or after any delivered heartbeat.",
		fmt.Sprintf("Simulated %d × %d heartbeats in %.3f s wall (delivered heartbeats skipped in geometric jumps); the registry (%s, Manual, virtual clock) took %d × %d heartbeats per ttl in %.3f s.",
			sim.Instances, sim.Ticks, sim.Wall.Seconds(), reg.Strategy, reg.Instances, reg.Ticks, reg.Wall.Seconds()),
		"The article's figures are for 1000 instances, 300 s, 1 s heartbeats and 10 % loss.",
	}
	return t
}

// rowChecks: each count against its expectation, and the two against each other.
func (s *ttlFalseRemoval) rowChecks(m removalMeasure, r removalRow) []report.Check {
	sim, reg := m.rec.Sim, m.rec.Registry
	art, hasArt := articleRemovals[r.label]
	claim := func(at bool) report.Claim {
		if !hasArt {
			return report.Says("(no article figure for this ttl)")
		}
		return report.SaysValue(fmt.Sprintf("%s false removals", report.Num(art.removals)), art.removals).OnlyIf(at)
	}
	agreeArt := func(e report.Expect) report.Expect {
		return e.Within(2*math.Sqrt(2*art.removals)+1, "the article's count and ours are two draws of counts with variance ≈ E (rare, "+
			"nearly independent events): they differ by at most 2√(2E) at 95 %, E taken at the article's count, + 1 for whole counts").
			Spread("the count is one draw of a random process (which heartbeats are lost, seeded): the article's figure is another draw")
	}
	poisson := func(e float64) float64 { return 4*math.Sqrt(e) + 5 }
	basis := "exact expectation E of the rule ± (4√E + 5): a sum of rare, nearly independent events"
	cs := []report.Check{
		agreeArt(report.Band("simulation: false removals at ttl "+r.label+" s", math.Max(0, r.simExact-poisson(r.simExact)),
			r.simExact+poisson(r.simExact), "").Digits(0).From(basis).Says(claim(s.articleSetup(sim.Instances, sim.Ticks)))).
			Judge(float64(r.sim)),
	}
	regE := agreeArt(report.Band("registry: false removals at ttl "+r.label+" s", math.Max(0, r.regExact-poisson(r.regExact)),
		r.regExact+poisson(r.regExact), "").Digits(0).From(basis).Says(claim(s.articleSetup(reg.Instances, reg.Ticks))))
	half := 4*math.Sqrt(r.regExact+m.scale*m.scale*r.simExact) + 5
	agree := report.Band("registry − simulation at ttl "+r.label+" s", -half, half, "").Digits(1).
		From(fmt.Sprintf("two independent counts (simulation scaled by %.3g to the registry's instances): ± (4√(E_reg + s²·E_sim) + 5)", m.scale)).
		Says(report.Says("no such comparison in the article"))
	if !r.hasReg {
		why := "the registry recorded no count for this ttl"
		return append(cs, regE.Invalid(why), agree.Invalid(why))
	}
	diff := float64(r.reg) - m.scale*float64(r.sim)
	return append(cs, regE.Judge(float64(r.reg)),
		agree.JudgeText(diff, fmt.Sprintf("%d − %.1f = %.1f", r.reg, m.scale*float64(r.sim), diff)))
}

// reregCheck: every removed instance registered again at its next
// delivered heartbeat, except those still in their loss run at the end.
func (s *ttlFalseRemoval) reregCheck(m removalMeasure) report.Check {
	e := report.Exactly("registry: removals not re-registered (beyond those down at the end)", 0, "").
		From("an expired instance registers again at its next delivered heartbeat (Heartbeat → ErrNotFound → Register)").
		Says(report.Says("an expired instance registers again at its next heartbeat"))
	var off, removals int64
	for _, c := range m.rec.Registry.PerTTL {
		off += abs64(c.Removals - c.Reregistrations - c.DownAtEnd)
		removals += c.Removals
	}
	if len(m.rec.Registry.PerTTL) == 0 {
		return e.Invalid("the registry recorded no count")
	}
	return e.JudgeText(float64(off), fmt.Sprintf("%d of %d removals", off, removals))
}

func abs64(x int64) int64 { return max(x, -x) }

// conclude states how false removals fall per extra tolerated loss, from the counts.
func (s *ttlFalseRemoval) conclude(res *report.Result, m removalMeasure) {
	sorted := slices.Clone(m.rows)
	slices.SortStableFunc(sorted, func(a, b removalRow) int { return a.k - b.k })
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if a.k == b.k {
			res.Conclude(fmt.Sprintf("ttl %s s and %s s both expire after k = %d lost heartbeats in a row: the simulation removed %d and %d (the same loss pattern), the registry %d and %d.",
				a.label, b.label, a.k, a.sim, b.sim, a.reg, b.reg))
			continue
		}
		res.Conclude(fmt.Sprintf("From k = %d to k = %d (ttl %s s → %s s) false removals fell from %d to %d in the simulation and from %d to %d on the registry: %s per extra tolerated loss (theory: ÷%.3g, i.e. 1/loss).",
			a.k, b.k, a.label, b.label, a.sim, b.sim, a.reg, b.reg, perStepFactor(a.sim, b.sim, b.k-a.k), 1/m.rec.Sim.Loss))
	}
	if len(sorted) > 0 {
		low := sorted[0]
		res.Conclude(fmt.Sprintf("At ttl %s s each live instance was falsely removed %.3g times in %s on average.",
			low.label, float64(low.sim)/float64(m.rec.Sim.Instances), time.Duration(m.rec.Sim.Ticks)*s.Heartbeat))
	}
	res.Conclude(fmt.Sprintf("The simulation of %d instances × %d heartbeats took %.3f s; the registry's %d instances × %d heartbeats × %d ttls took %.3f s.",
		m.rec.Sim.Instances, m.rec.Sim.Ticks, m.rec.Sim.Wall.Seconds(), m.rec.Registry.Instances, m.rec.Registry.Ticks,
		len(m.rec.Registry.PerTTL), m.rec.Registry.Wall.Seconds()))
}

// perStepFactor is the geometric mean fall per extra k between two counts.
func perStepFactor(a, b int64, dk int) string {
	if b == 0 {
		return "down to zero"
	}
	return fmt.Sprintf("÷%.3g", math.Pow(float64(a)/float64(b), 1/float64(dk)))
}
