//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	lease "sdchaos/registry"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "expiry-latency",
		Article: "article 40.1",
		Summary: "how long a crashed instance stays listed under lazy, scan and heap expiry",
		Help: `Setup: the in-memory lease registry (package registry) on the real clock, one
registry per run, one instance per registry; no network.

Timeline of one run: New starts the scan ticker; the instance registers; after a
random phase (seeded RNG; uniform in [0, interval) for the scans, [0, --scan-slow)
for lazy and heap) it sends its last heartbeat and "crashes". Lookup is polled
every 1 ms from just before ttl on; the latency is last heartbeat → first Lookup
without the instance. --runs runs per strategy (lazy, scan every --scan-slow,
scan every --scan-fast, heap) all run at once, so the scenario takes about
--scan-slow + ttl + --scan-slow. Control: --runs explicit Deregister calls, timed
until a Lookup no longer returns the instance. --duration is not used.

Reproduced when: lazy and heap min and max within [ttl, ttl+30ms]; each scan
within [ttl, ttl+interval+30ms] with the slow scan's spread (max−min) ≥ 40 % of
its interval; deregister max < 1 ms.`,
		New: func() Config { return defaultExpiryLatency() },
	})
}

// expiryLatencyConfig holds the parameters of expiry-latency.
type expiryLatencyConfig struct {
	TTL      time.Duration
	Runs     int
	ScanSlow time.Duration
	ScanFast time.Duration
}

// defaultExpiryLatency returns the article's setup: ttl 2 s, 20 runs, scans every 1 s and 200 ms.
func defaultExpiryLatency() *expiryLatencyConfig {
	return &expiryLatencyConfig{TTL: 2 * time.Second, Runs: 20, ScanSlow: time.Second, ScanFast: 200 * time.Millisecond}
}

// latencyPoll is how often a run polls Lookup; lazyBand is the allowed
// delay beyond ttl for lazy and heap expiry (and beyond ttl+interval for scans).
const (
	latencyPoll = time.Millisecond
	lazyBand    = 30 * time.Millisecond
)

// Flags binds --ttl, --runs, --scan-slow and --scan-fast.
func (c *expiryLatencyConfig) Flags(fs *flag.FlagSet) {
	fs.DurationVar(&c.TTL, "ttl", c.TTL, "lease ttl")
	fs.IntVar(&c.Runs, "runs", c.Runs, "crashes per expiry strategy")
	fs.DurationVar(&c.ScanSlow, "scan-slow", c.ScanSlow, "interval of the slow background scan")
	fs.DurationVar(&c.ScanFast, "scan-fast", c.ScanFast, "interval of the fast background scan")
}

// Validate requires positive durations and 2–1000 runs.
func (c *expiryLatencyConfig) Validate(Common) error {
	switch {
	case c.TTL <= 0:
		return Usagef("--ttl (%s) must be positive", c.TTL)
	case c.Runs < 2 || c.Runs > 1000:
		return Usagef("--runs (%d) must be within 2–1000 (min, median and max need runs; all run at once)", c.Runs)
	case c.ScanSlow <= 0:
		return Usagef("--scan-slow (%s) must be positive", c.ScanSlow)
	case c.ScanFast <= 0:
		return Usagef("--scan-fast (%s) must be positive", c.ScanFast)
	}
	return nil
}

// latencyArm is one expiry strategy under test and the article's figures for it.
type latencyArm struct {
	key      string // metric prefix
	label    string
	strategy lease.Strategy
	interval time.Duration // scan interval; 0 for lazy and heap
	article  [3]string     // min, median, max
}

func (c *expiryLatencyConfig) arms() []latencyArm {
	none := [3]string{"—", "—", "—"}
	return []latencyArm{
		{"lazy", "lazy (checked at lookup)", lease.Lazy, 0, [3]string{"2.00 s", "2.01 s", "2.01 s"}},
		{"scan_slow", "background scan every " + c.ScanSlow.String(), lease.Scan, c.ScanSlow, [3]string{"2.05 s", "2.51 s", "2.93 s"}},
		{"scan_fast", "background scan every " + c.ScanFast.String(), lease.Scan, c.ScanFast, [3]string{"2.03 s", "2.11 s", "2.20 s"}},
		{"heap", "min-heap (sleeps until the next deadline)", lease.Heap, 0, none},
	}
}

// phaseSpan is the range of a run's crash phase relative to the scan ticker.
func (c *expiryLatencyConfig) phaseSpan(a latencyArm) time.Duration {
	if a.interval > 0 {
		return a.interval
	}
	return c.ScanSlow
}

// crashRun is one run's phase and outcome.
type crashRun struct {
	phase    time.Duration
	latency  time.Duration
	staleLen bool // Len() still counted the instance when Lookup first dropped it
}

// Run crashes --runs instances per strategy concurrently, then times the
// deregister control, and judges the latencies.
func (c *expiryLatencyConfig) Run(ctx context.Context, env *Env) (*report.Result, error) {
	arms := c.arms()
	runs := make([][]crashRun, len(arms))
	for i, a := range arms {
		runs[i] = make([]crashRun, c.Runs)
		for j := range runs[i] {
			runs[i][j].phase = time.Duration(env.Rand.Float64() * float64(c.phaseSpan(a)))
		}
	}
	env.Printf("crashing %d instances at once (%d per strategy), ttl %s", len(arms)*c.Runs, c.Runs, c.TTL)
	if err := c.crashAll(ctx, arms, runs); err != nil {
		return nil, err
	}
	dereg, err := c.deregisterAll()
	if err != nil {
		return nil, err
	}
	return c.judge(arms, runs, dereg), nil
}

// crashAll runs every crash at once, one registry each.
func (c *expiryLatencyConfig) crashAll(ctx context.Context, arms []latencyArm, runs [][]crashRun) error {
	g, ctx := errgroup.WithContext(ctx)
	for i, a := range arms {
		for j := range runs[i] {
			run := &runs[i][j]
			g.Go(func() error {
				if err := c.crashOnce(ctx, a, run); err != nil {
					return fmt.Errorf("crash run %d of %s: %w", j+1, a.key, err)
				}
				return nil
			})
		}
	}
	return g.Wait()
}

// crashOnce registers, heartbeats once after run.phase, stops, and polls
// Lookup until the instance is gone.
func (c *expiryLatencyConfig) crashOnce(ctx context.Context, a latencyArm, run *crashRun) error {
	r, err := lease.New(lease.Options{Strategy: a.strategy, ScanInterval: a.interval})
	if err != nil {
		return fmt.Errorf("creating registry: %w", err)
	}
	defer r.Close()
	if err := r.Register("svc", "i1", "127.0.0.1:9150", c.TTL); err != nil {
		return fmt.Errorf("registering: %w", err)
	}
	if err := sleepCtx(ctx, run.phase); err != nil {
		return err
	}
	last := time.Now()
	if err := r.Heartbeat("i1"); err != nil {
		return fmt.Errorf("last heartbeat: %w", err)
	}
	if err := sleepCtx(ctx, time.Until(last.Add(c.TTL-2*latencyPoll))); err != nil {
		return err
	}
	giveUp := last.Add(c.TTL + a.interval + time.Second)
	for {
		n := r.Len()
		if len(r.Lookup("svc")) == 0 {
			run.latency, run.staleLen = time.Since(last), n > 0
			return nil
		}
		if time.Now().After(giveUp) {
			return fmt.Errorf("instance still listed %s after its last heartbeat", time.Since(last).Round(time.Millisecond))
		}
		if err := sleepCtx(ctx, latencyPoll); err != nil {
			return err
		}
	}
}

// deregisterAll times --runs explicit deregistrations, one after another.
func (c *expiryLatencyConfig) deregisterAll() ([]float64, error) {
	us := make([]float64, c.Runs)
	for i := range us {
		d, err := c.deregisterOnce()
		if err != nil {
			return nil, fmt.Errorf("deregister run %d: %w", i+1, err)
		}
		us[i] = float64(d) / float64(time.Microsecond)
	}
	return us, nil
}

// deregisterOnce times Deregister plus the Lookup that confirms it.
func (c *expiryLatencyConfig) deregisterOnce() (time.Duration, error) {
	r, err := lease.New(lease.Options{Strategy: lease.Scan, ScanInterval: c.ScanSlow})
	if err != nil {
		return 0, fmt.Errorf("creating registry: %w", err)
	}
	defer r.Close()
	if err := r.Register("svc", "i1", "127.0.0.1:9150", c.TTL); err != nil {
		return 0, fmt.Errorf("registering: %w", err)
	}
	start := time.Now()
	ok := r.Deregister("i1")
	gone := len(r.Lookup("svc")) == 0
	d := time.Since(start)
	if !ok || !gone {
		return 0, fmt.Errorf("deregister returned %v and Lookup still lists the instance: %v", ok, !gone)
	}
	return d, nil
}

// sleepCtx sleeps for d (nothing if d ≤ 0) or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// latencyStats summarises one strategy's latencies, in seconds.
type latencyStats struct{ min, median, max float64 }

func summarize(xs []float64) latencyStats {
	lo, hi := report.MinMax(xs)
	return latencyStats{min: lo, median: report.Median(xs), max: hi}
}

// judge builds the table, metrics, checks and conclusion.
func (c *expiryLatencyConfig) judge(arms []latencyArm, runs [][]crashRun, dereg []float64) *report.Result {
	res := report.NewResult("expiry-latency")
	res.Title = fmt.Sprintf("article 40.1: time for a crashed instance to disappear (ttl %s, %d runs each)", c.TTL, c.Runs)
	t := report.Table{
		Title:  "Last heartbeat → gone from Lookup",
		Header: []string{"expiry implementation", "min", "median", "max", "article min", "article median", "article max"},
	}
	stats := make([]latencyStats, len(arms))
	for i, a := range arms {
		stats[i] = summarize(latencies(runs[i]))
		s := stats[i]
		t.Rows = append(t.Rows, []string{a.label, fmtSec(s.min), fmtSec(s.median), fmtSec(s.max), a.article[0], a.article[1], a.article[2]})
		res.Metrics[a.key+".min_s"], res.Metrics[a.key+".median_s"], res.Metrics[a.key+".max_s"] = s.min, s.median, s.max
		res.AddCheck(c.armChecks(a, s)...)
		res.TimelineSeconds = max(res.TimelineSeconds, timeline(runs[i]))
	}
	d := summarize(dereg)
	t.Rows = append(t.Rows, []string{"control: explicit deregister", fmtUs(d.min), fmtUs(d.median), fmtUs(d.max), "", "59 µs", ""})
	t.Notes = []string{fmt.Sprintf("Crash phases are uniform over the scan interval (seeded); Lookup is polled every %s. "+
		"The article's figures are for ttl 2 s with scans every 1 s and 0.2 s; it had no heap run.", latencyPoll)}
	res.AddTable(t)
	res.Metrics["deregister.max_us"] = d.max
	res.AddCheck(report.Check{Name: "deregister max", Article: "59 µs", Measured: report.Num(d.max) + " µs",
		Band: "< 1000 µs", Pass: d.max < 1000})
	c.conclude(res, arms, stats, runs, d)
	return res
}

// armChecks: min and max within [ttl, ttl+interval+30ms]; the slow scan's spread ≥ 40 % of its interval.
func (c *expiryLatencyConfig) armChecks(a latencyArm, s latencyStats) []report.Check {
	lo, hi := c.TTL.Seconds(), (c.TTL + a.interval + lazyBand).Seconds()
	cs := []report.Check{
		report.Between(a.key+" min", a.article[0], s.min, lo, hi, " s"),
		report.Between(a.key+" max", a.article[2], s.max, lo, hi, " s"),
	}
	if a.key == "scan_slow" {
		cs = append(cs, report.AtLeast("scan_slow spread (max − min)", "0.88 s", s.max-s.min, 0.4*a.interval.Seconds(), " s"))
	}
	return cs
}

// conclude writes the conclusion from the measured figures.
func (c *expiryLatencyConfig) conclude(res *report.Result, arms []latencyArm, stats []latencyStats, runs [][]crashRun, d latencyStats) {
	ttl := c.TTL.Seconds()
	fastest := stats[0].min
	for i, a := range arms {
		s := stats[i]
		fastest = min(fastest, s.min)
		if a.interval == 0 {
			res.Conclude(fmt.Sprintf("%s: gone %s after the ttl (median; at most %s) — %s.",
				a.label, fmtMs(s.median-ttl), fmtMs(s.max-ttl), lateWord(s.max-ttl <= lazyBand.Seconds())))
			continue
		}
		frac := (s.max - s.min) / a.interval.Seconds()
		res.Conclude(fmt.Sprintf("%s: gone %s to %s after the ttl (median %s); the spread is %.0f %% of the interval — %s.",
			a.label, fmtMs(s.min-ttl), fmtMs(s.max-ttl), fmtMs(s.median-ttl), 100*frac, spreadWord(frac)))
	}
	stale := 0
	for _, r := range runs[0] {
		if r.staleLen {
			stale++
		}
	}
	res.Conclude(fmt.Sprintf("In %d of %d lazy runs Len() still counted the dead instance when Lookup first left it out: "+
		"lazy expiry hides the instance from Lookup only; counts and anything else see the stale state.", stale, len(runs[0])))
	res.Conclude(fmt.Sprintf("Explicit deregister: gone when the call returned, median %s, max %s (article 59 µs); "+
		"the fastest lease expiry took %s.", fmtUs(d.median), fmtUs(d.max), fmtSec(fastest)))
}

func lateWord(inBand bool) string {
	if inBand {
		return "no scan delay, only polling and wake-up latency"
	}
	return "later than polling and wake-up latency explain (a loaded machine?)"
}

func spreadWord(frac float64) string {
	if frac >= 0.4 {
		return "the delay is ttl plus a wait up to one interval, set by the crash's phase against the scan ticker"
	}
	return "narrower than a crash phase uniform over the interval should give"
}

func latencies(runs []crashRun) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.latency.Seconds()
	}
	return out
}

// timeline is the longest run from registration to disappearance, in seconds.
func timeline(runs []crashRun) float64 {
	var t float64
	for _, r := range runs {
		t = max(t, (r.phase + r.latency).Seconds())
	}
	return t
}

func fmtSec(s float64) string { return fmt.Sprintf("%.3f s", s) }
func fmtMs(s float64) string  { return fmt.Sprintf("%.1f ms", s*1000) }
func fmtUs(us float64) string { return fmt.Sprintf("%.1f µs", us) }
