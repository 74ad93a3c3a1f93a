package article40

import (
	"fmt"
	"math"
	"slices"
	"time"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/registry"
	"sdchaos/scenarios"
)

// Plots draws false removals against ttl on a log axis: both counts, the
// exact expectation of the rule (a staircase: a ttl counts only through
// k = ⌈ttl / heartbeat⌉) and the article's approximation and figures.
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
			e := registry.ExpectedRemovals(n, sim.Ticks, registry.TicksToExpire(time.Duration(ttl*float64(time.Second)), s.Heartbeat), sim.Loss)
			return positiveOrNaN(e)
		}
	}
	lines := []figure.Line{
		figure.Function(fmt.Sprintf("exact expectation, %d instances", sim.Instances), exact(sim.Instances), lo, hi, 400, false).Styled(figure.Blue, figure.Dashed),
	}
	if reg.Instances != sim.Instances && reg.Instances > 0 {
		lines = append(lines, figure.Function(fmt.Sprintf("exact expectation, %d instances", reg.Instances), exact(reg.Instances), lo, hi, 400, false).Styled(figure.Orange, figure.Dashed))
	}
	approx := func(ttl float64) float64 {
		k := registry.TicksToExpire(time.Duration(ttl*float64(time.Second)), s.Heartbeat)
		return positiveOrNaN(registry.ApproxRemovals(sim.Instances, sim.Ticks, k, sim.Loss))
	}
	lines = append(lines, figure.Function("article's theory N·T·loss^k·(1 − loss)", approx, lo, hi, 400, false).Styled(figure.Grey, figure.Dotted))
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
	return []figure.Plot{figure.One("false-removals", p)}, nil
}

// removalPoints are the measured counts and, in the article's setup, its figures.
func (s *ttlFalseRemoval) removalPoints(m removalMeasure) []figure.Points {
	simPts := figure.Points{Name: fmt.Sprintf("simulation (%d instances)", m.rec.Sim.Instances), Color: figure.Blue, Radius: 3.5}
	regPts := figure.Points{Name: fmt.Sprintf("real registry (%d instances)", m.rec.Registry.Instances), Color: figure.Orange, Radius: 2.5}
	art := figure.Points{Name: "article (1000 instances, 300 s, 10 % loss)", Color: figure.Black, Hollow: true, Radius: 5}
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
