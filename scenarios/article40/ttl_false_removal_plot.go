package article40

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/registry"
	"sdchaos/scenarios"
)

// Plots draws false removals against ttl on a log axis: both counts, the
// exact expectation of the rule (a staircase: a ttl counts only through
// k = ⌈ttl / heartbeat⌉) and the article's approximation and figures.
// The approximation differs from the exact expectation by about 1 %, too
// little to see on a log axis: it is drawn wide and light under the exact
// line, its largest relative difference at the drawn ttls in its legend.
// The markers nest instead of covering each other: the simulation a dot,
// the registry an open square around it, the article's figure a ring.
func (s *ttlFalseRemoval) Plots(h *history.History) ([]figure.Plot, error) {
	m, why := s.measure(h)
	if why != "" {
		return nil, fmt.Errorf("ttl-false-removal: %s", why)
	}
	sim, reg := m.rec.Sim, m.rec.Registry
	title := fmt.Sprintf("False removals of live instances vs ttl (%d instances, %d heartbeats of %s, %g loss)",
		sim.Instances, sim.Ticks, s.Heartbeat, sim.Loss)
	p := figure.NewPanel(title, "ttl (s)", "false removals (log)")
	figure.LogY(p)
	lo, hi := ttlRange(m.rows)
	exact := func(n int) func(float64) float64 {
		return func(ttl float64) float64 {
			return positiveOrNaN(registry.ExpectedRemovals(n, sim.Ticks, s.ticks(ttl), sim.Loss))
		}
	}
	approx := func(ttl float64) float64 {
		return positiveOrNaN(registry.ApproxRemovals(sim.Instances, sim.Ticks, s.ticks(ttl), sim.Loss))
	}
	theory := figure.Function(fmt.Sprintf("article's theory N·T·loss^k·(1 − loss): ≤ %s off the exact", theoryGap(m.rows)),
		approx, lo, hi, 400, false)
	theory.Color, theory.Width = figure.Light(figure.Black, 0x38), 7
	lines := []figure.Line{theory,
		figure.Function(fmt.Sprintf("exact expectation, %d instances", sim.Instances), exact(sim.Instances), lo, hi, 400, false).Styled(figure.Blue, figure.Dashed),
	}
	if reg.Instances != sim.Instances && reg.Instances > 0 {
		lines = append(lines, figure.Function(fmt.Sprintf("exact expectation, %d instances", reg.Instances), exact(reg.Instances), lo, hi, 400, false).Styled(figure.Orange, figure.Dashed))
	}
	if err := figure.AddLines(p, lines...); err != nil {
		return nil, err
	}
	if err := figure.AddPoints(p, s.removalPoints(m)...); err != nil {
		return nil, err
	}
	if hasZero(m.rows) {
		p.Title.Text += " — a count of 0 is not drawn"
	}
	figure.Headroom(p, 0.05)
	f := figure.One("false-removals", p)
	f.Height = 4 * vg.Inch
	return []figure.Plot{f}, nil
}

// ticks is k for a ttl in seconds: the heartbeats it tolerates.
func (s *ttlFalseRemoval) ticks(ttl float64) int {
	return registry.TicksToExpire(time.Duration(ttl*float64(time.Second)), s.Heartbeat)
}

// theoryGap is the largest relative difference between the article's
// approximation and the exact expectation at the measured ttls ("0.3 %").
func theoryGap(rows []removalRow) string {
	gap := 0.0
	for _, r := range rows {
		if r.simExact > 0 {
			gap = math.Max(gap, math.Abs(r.simTheory/r.simExact-1))
		}
	}
	return fmt.Sprintf("%.1f %%", 100*gap)
}

// removalPoints are the measured counts and, in the article's setup, its
// figures: a dot, an open square and a ring, which nest where they agree.
func (s *ttlFalseRemoval) removalPoints(m removalMeasure) []figure.Points {
	simPts := figure.Points{Name: fmt.Sprintf("simulation (%d instances)", m.rec.Sim.Instances), Color: figure.Blue, Radius: 2.6}
	regPts := figure.Points{Name: fmt.Sprintf("real registry (%d instances)", m.rec.Registry.Instances), Color: figure.Vermilion, Radius: 4.6, Shape: figure.OpenSquare{}}
	art := figure.Points{Name: "article (1000 instances, 300 s, 10 % loss)", Color: figure.Black, Hollow: true, Radius: 8.5}
	for _, r := range m.rows {
		x := r.ttl.Seconds()
		simPts.X, simPts.Y = append(simPts.X, x), append(simPts.Y, float64(r.sim))
		if r.hasReg {
			regPts.X, regPts.Y = append(regPts.X, x), append(regPts.Y, float64(r.reg))
		}
		if a, ok := articleRemovals[r.label]; ok && s.articleSetup(m.rec.Sim.Instances, m.rec.Sim.Ticks) {
			art.X, art.Y = append(art.X, x), append(art.Y, a.removals)
		}
	}
	out := []figure.Points{simPts, regPts}
	if len(art.X) > 0 {
		out = append(out, art)
	}
	return out
}

// Curves are what a sweep over --ttls (one ttl per point) plots: both
// counts against their exact expectation, on a log axis.
func (s *ttlFalseRemoval) Curves() []scenarios.Curve {
	l := scenarios.SecondsLabel(s.TTLs[0])
	return []scenarios.Curve{
		{Name: "false removals, simulation", Metric: "removals@" + l, Theory: "exact@" + l, Check: "simulation: false removals at ttl " + l + " s", Log: true},
		{Name: "false removals, real registry", Metric: "registry_removals@" + l, Theory: "registry_exact@" + l, Check: "registry: false removals at ttl " + l + " s", Log: true},
	}
}

// ttlRange is the x range of the theory lines: the ttls, widened by half a heartbeat.
func ttlRange(rows []removalRow) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		lo, hi = math.Min(lo, r.ttl.Seconds()), math.Max(hi, r.ttl.Seconds())
	}
	return math.Max(lo*0.8, 1e-3), hi * 1.1
}

func hasZero(rows []removalRow) bool {
	return slices.ContainsFunc(rows, func(r removalRow) bool { return r.sim == 0 || (r.hasReg && r.reg == 0) })
}

// positiveOrNaN keeps a value a log axis can show.
func positiveOrNaN(v float64) float64 {
	if v > 0 {
		return v
	}
	return math.NaN()
}
