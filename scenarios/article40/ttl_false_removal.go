//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"time"

	lease "sdchaos/registry"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "ttl-false-removal",
		Article: "article 40.2",
		Summary: "live instances falsely removed vs ttl under independent heartbeat loss (virtual clock)",
		Help: `Setup: --instances live instances, registered at time 0, heartbeat every
--heartbeat for --duration (default 300s) of virtual time; each heartbeat is lost
independently with probability --loss (seeded). No instance ever crashes.

Rule at each tick: the tick's delivered heartbeats are applied first, then an
instance expires if now − last heartbeat ≥ ttl; an expired instance registers
again at its next delivered heartbeat. Each expiry is one false removal. So a ttl
of k heartbeat intervals (k = ⌈ttl/heartbeat⌉) falsely removes an instance once
per run of ≥ k consecutive lost heartbeats. Every ttl in --ttls is counted on the
same loss pattern. The simulation skips delivered heartbeats in geometric jumps
and draws only the loss runs, so 1,000,000 instances × 3600 s take seconds
(try --instances 1000000 --duration 3600s; the wall time is printed).

Theory: instances × ticks × loss^k × (1 − loss) (the article's); the exact
expectation instances × (loss^k + (ticks − k)(1 − loss)loss^k) is shown beside it.

Reproduced when: every ttl's count is within 4σ + 5 of the theory (σ = √theory).`,
		New: func() Config { return defaultTTLFalseRemoval() },
	})
}

// ttlFalseRemovalConfig holds the parameters of ttl-false-removal; the
// simulated length is the common --duration.
type ttlFalseRemovalConfig struct {
	Instances int
	Heartbeat time.Duration
	Loss      float64
	TTLs      SecondsList
}

// defaultTTLFalseRemoval returns the article's setup: 1000 instances, 1 s
// heartbeats, 10 % loss, ttls 1.5, 2, 3 and 5 s.
func defaultTTLFalseRemoval() *ttlFalseRemovalConfig {
	return &ttlFalseRemovalConfig{Instances: 1000, Heartbeat: time.Second, Loss: 0.1,
		TTLs: SecondsList{1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second}}
}

// Defaults sets --duration to the article's 5 minutes.
func (c *ttlFalseRemovalConfig) Defaults(common *Common) { common.Duration = 300 * time.Second }

// Flags binds --instances, --heartbeat, --loss and --ttls.
func (c *ttlFalseRemovalConfig) Flags(fs *flag.FlagSet) {
	fs.IntVar(&c.Instances, "instances", c.Instances, "number of live instances")
	fs.DurationVar(&c.Heartbeat, "heartbeat", c.Heartbeat, "heartbeat interval")
	fs.Float64Var(&c.Loss, "loss", c.Loss, "probability that a heartbeat is lost, independently, in [0, 1)")
	fs.Var(&c.TTLs, "ttls", "comma-separated ttls in seconds (or Go durations)")
}

// Validate checks the ranges and that --duration covers at least one heartbeat.
func (c *ttlFalseRemovalConfig) Validate(common Common) error {
	switch {
	case c.Instances < 1 || c.Instances > 100_000_000:
		return Usagef("--instances (%d) must be within 1–100000000", c.Instances)
	case c.Heartbeat <= 0:
		return Usagef("--heartbeat (%s) must be positive", c.Heartbeat)
	case !(c.Loss >= 0 && c.Loss < 1):
		return Usagef("--loss (%g) must be in [0, 1)", c.Loss)
	case len(c.TTLs) == 0:
		return Usagef("--ttls is empty; give at least one ttl, e.g. --ttls 1.5,2,3,5")
	case common.Duration < c.Heartbeat:
		return Usagef("--duration (%s) is shorter than one --heartbeat (%s)", common.Duration, c.Heartbeat)
	}
	for i, ttl := range c.TTLs {
		if ttl <= 0 {
			return Usagef("--ttls: ttl %s s must be positive", SecondsLabel(ttl))
		}
		if slices.Contains(c.TTLs[:i], ttl) {
			return Usagef("--ttls lists %s s twice", SecondsLabel(ttl))
		}
	}
	return nil
}

// Run simulates the loss pattern once and counts the false removals of every ttl on it.
func (c *ttlFalseRemovalConfig) Run(ctx context.Context, env *Env) (*report.Result, error) {
	ticks := int(env.Duration / c.Heartbeat)
	maxK := 1
	for _, ttl := range c.TTLs {
		maxK = max(maxK, lease.TicksToExpire(ttl, c.Heartbeat))
	}
	sim := lease.LossSim{Instances: c.Instances, Ticks: ticks, Loss: c.Loss, Seed: env.Rand.Uint64(), MaxRun: min(maxK, max(ticks, 1))}
	env.Printf("simulating %d instances × %d heartbeats at %g loss", c.Instances, ticks, c.Loss)
	start := time.Now()
	runs, err := sim.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("simulating: %w", err)
	}
	elapsed := time.Since(start)
	env.Printf("simulated %.3g heartbeats in %.3f s", float64(c.Instances)*float64(ticks), elapsed.Seconds())
	// No TimelineSeconds: the timeline is virtual, so wall ÷ timeline means
	// nothing here (the simulated span is --duration in params).
	return c.judge(sim, runs, elapsed), nil
}

// removalRow is one ttl's outcome.
type removalRow struct {
	ttl           time.Duration
	k             int
	removals      int64
	theory, exact float64
}

// articleRemovals are the article's figures: removals and theory per ttl.
var articleRemovals = map[string][2]string{
	"1.5": {"2652", "2700.0"}, "2": {"2652", "2700.0"}, "3": {"263", "270.0"}, "5": {"3", "2.7"},
}

// judge builds the table, metrics, checks and conclusion.
func (c *ttlFalseRemovalConfig) judge(sim lease.LossSim, runs lease.LossRuns, elapsed time.Duration) *report.Result {
	res := report.NewResult("ttl-false-removal")
	res.Title = fmt.Sprintf("article 40.2: ttl vs false removals (%d instances, %d heartbeats of %s, %g loss)",
		sim.Instances, sim.Ticks, c.Heartbeat, c.Loss)
	t := report.Table{Title: "False removals of live instances",
		Header: []string{"ttl", "k (losses in a row to expire)", "false removals", "theory N×T×loss^k×(1−loss)",
			"exact expectation (derived)", "article removals", "article theory"}}
	rows := c.rows(sim, runs)
	for _, r := range rows {
		label := SecondsLabel(r.ttl)
		art, ok := articleRemovals[label]
		if !ok {
			art = [2]string{"—", "—"}
		}
		t.Rows = append(t.Rows, []string{label + " s", fmt.Sprint(r.k), fmt.Sprint(r.removals),
			fmt.Sprintf("%.1f", r.theory), fmt.Sprintf("%.1f", r.exact), art[0], art[1]})
		res.Metrics["k@"+label], res.Metrics["removals@"+label], res.Metrics["theory@"+label] = float64(r.k), float64(r.removals), r.theory
		band := 4*math.Sqrt(r.theory) + 5
		res.AddCheck(report.Between("removals@"+label, art[0], float64(r.removals), math.Max(0, r.theory-band), r.theory+band, ""))
	}
	t.Notes = c.notes(sim, runs, elapsed)
	res.AddTable(t)
	c.conclude(res, sim, rows, elapsed)
	return res
}

func (c *ttlFalseRemovalConfig) rows(sim lease.LossSim, runs lease.LossRuns) []removalRow {
	out := make([]removalRow, len(c.TTLs))
	for i, ttl := range c.TTLs {
		k := lease.TicksToExpire(ttl, c.Heartbeat)
		out[i] = removalRow{ttl: ttl, k: k, removals: runs.Removals(k),
			theory: lease.ApproxRemovals(sim.Instances, sim.Ticks, k, c.Loss),
			exact:  lease.ExpectedRemovals(sim.Instances, sim.Ticks, k, c.Loss)}
	}
	return out
}

func (c *ttlFalseRemovalConfig) notes(sim lease.LossSim, runs lease.LossRuns, elapsed time.Duration) []string {
	var lossRuns int64
	for _, n := range runs.ByLength {
		lossRuns += n
	}
	return []string{
		"k = ⌈ttl / heartbeat⌉: expiry is checked at heartbeat ticks, after that tick's heartbeats. All ttls are counted on the same loss pattern.",
		"Exact expectation = N × (loss^k + (T − k)(1 − loss)loss^k): k losses right after registration, or after any delivered heartbeat.",
		fmt.Sprintf("Simulated %d × %d = %.3g heartbeats of virtual time in %.3f s wall: delivered heartbeats are skipped in geometric jumps, only the %d loss runs are drawn.",
			sim.Instances, sim.Ticks, float64(sim.Instances)*float64(sim.Ticks), elapsed.Seconds(), lossRuns),
		"The article's figures are for 1000 instances, 300 s, 1 s heartbeats and 10 % loss.",
	}
}

// conclude states how false removals fall per extra tolerated loss, from the counts.
func (c *ttlFalseRemovalConfig) conclude(res *report.Result, sim lease.LossSim, rows []removalRow, elapsed time.Duration) {
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b removalRow) int { return a.k - b.k })
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if a.k == b.k {
			res.Conclude(fmt.Sprintf("ttl %s s and %s s both expire after k = %d lost heartbeats in a row, so on the same loss pattern they removed the same instances: %d and %d.",
				SecondsLabel(a.ttl), SecondsLabel(b.ttl), a.k, a.removals, b.removals))
			continue
		}
		res.Conclude(fmt.Sprintf("From k = %d to k = %d (ttl %s s → %s s) false removals fell from %d to %d: %s per extra tolerated loss (theory: ÷%.3g, i.e. 1/loss).",
			a.k, b.k, SecondsLabel(a.ttl), SecondsLabel(b.ttl), a.removals, b.removals, perStepFactor(a, b), 1/c.Loss))
	}
	low := sorted[0]
	res.Conclude(fmt.Sprintf("At ttl %s s each live instance was falsely removed %.3g times in %s on average.",
		SecondsLabel(low.ttl), float64(low.removals)/float64(sim.Instances), time.Duration(sim.Ticks)*c.Heartbeat))
	res.Conclude(fmt.Sprintf("The simulation of %d instances × %d heartbeats took %.3f s.", sim.Instances, sim.Ticks, elapsed.Seconds()))
}

// perStepFactor is the geometric mean fall per extra k between two rows.
func perStepFactor(a, b removalRow) string {
	if b.removals == 0 {
		return "down to zero"
	}
	f := math.Pow(float64(a.removals)/float64(b.removals), 1/float64(b.k-a.k))
	return fmt.Sprintf("÷%.3g", f)
}
