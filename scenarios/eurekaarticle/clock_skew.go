//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/clock"
	"sdchaos/eureka"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "clock-skew",
		Article: "Eureka article 5.4",
		Summary: "one Eureka server's clock steps forward while every worker keeps renewing: false evictions with self-preservation on and off",
		Help: `Setup: clusters of 3 Eureka model servers (own processes) with --workers workers each, with
self-preservation on and off; with --compare-lease (default) also a pair with the other lease rule
than --lease-bug. After --step-after, the wall clock of s1 of each cluster steps forward by --skew,
--lead before its next eviction run (the worst moment: few workers have renewed on the new
clock). The workers keep renewing throughout. All durations are model time; --time-scale sets
model seconds per real second.

Measured: evictions on the stepped server (all false: every worker is alive), its renewsLastMin
against the threshold at the run after the step, evictions on its peers, and how soon the
evicted workers are back on it.

Reproduced when: self-preservation does not protect (renewsLastMin, counted per minute of the
monotonic timer, stays above the threshold, and the on and off clusters lose the same number);
each cluster's false evictions are within what the lease rule predicts (none when the step is
shorter than k × lease − renew interval, the cap when it is longer than k × lease, k = 2 with the
source's renew bug); peers evict nobody; every evicted worker is back within one renew interval.
Article: "clock skew causes premature expiry, wrong renew times and false self-preservation".`,
		New: func() Config {
			return &clockSkew{eu: defaultEurekaParams(12), Skew: 2 * time.Minute, Lead: 5 * time.Second,
				StepAfter: 150 * time.Second, Observe: 3 * time.Minute, CompareLease: true}
		},
	})
}

// clockSkew steps one server's clock.
type clockSkew struct {
	eu           eurekaParams
	Skew, Lead   time.Duration
	StepAfter    time.Duration
	Observe      time.Duration
	CompareLease bool
}

func (s *clockSkew) Defaults(c *Common) {
	c.Duration = s.StepAfter + s.eu.config().EvictionInterval + s.Observe
}

func (s *clockSkew) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.DurationVar(&s.Skew, "skew", s.Skew, "forward step of s1's wall clock (model time)")
	fs.DurationVar(&s.Lead, "lead", s.Lead, "how long before s1's next eviction run the step happens (model time)")
	fs.DurationVar(&s.StepAfter, "step-after", s.StepAfter, "earliest step time (model time; 2 full minutes of renewals come first)")
	fs.DurationVar(&s.Observe, "observe", s.Observe, "observation after the eviction run that follows the step (model time)")
	fs.BoolVar(&s.CompareLease, "compare-lease", s.CompareLease, "also run a pair of clusters with the other lease rule")
}

func (s *clockSkew) Validate(c Common) error {
	if err := s.eu.validate(); err != nil {
		return err
	}
	cfg := s.eu.config()
	switch {
	case s.eu.Workers < 1:
		return Usagef("--workers (%d) must be at least 1", s.eu.Workers)
	case s.Skew <= 0:
		return Usagef("--skew (%s) must be a positive (forward) step", s.Skew)
	case s.Lead <= 0 || s.Lead >= cfg.EvictionInterval:
		return Usagef("--lead (%s) must be within (0, the eviction interval %s)", s.Lead, cfg.EvictionInterval)
	case s.StepAfter < 2*time.Minute:
		return Usagef("--step-after (%s) must be at least 2m", s.StepAfter)
	case s.Observe < cfg.RenewInterval+10*time.Second:
		return Usagef("--observe (%s) must be at least the renew interval + 10s (%s)", s.Observe, cfg.RenewInterval+10*time.Second)
	case c.Duration < s.StepAfter+cfg.EvictionInterval+s.Observe:
		return Usagef("--duration (%s) must be at least --step-after + 1m + --observe (%s)", c.Duration, s.StepAfter+cfg.EvictionInterval+s.Observe)
	}
	return nil
}

// skewCase is one cluster of the grid.
type skewCase struct {
	label    string // "bug-on"
	leaseBug bool
	sp       bool
	primary  bool // uses --lease-bug (the other pair is the contrast)
	cluster  *eurekaCluster
}

// skewRun is what a run recorded; times are model time from the recorder's zero.
type skewRun struct {
	factor   float64
	duration time.Duration
	cases    []skewResult
}

// skewResult is one cluster's record.
type skewResult struct {
	label             string
	leaseBug, sp      bool
	primary           bool
	stepAt            time.Duration
	stepped           bool
	skewed            eureka.History
	peers             map[string]eureka.History
	workers, capLimit int
}

func (s *clockSkew) cases() []*skewCase {
	rules := []bool{s.eu.LeaseBug}
	if s.CompareLease {
		rules = append(rules, !s.eu.LeaseBug)
	}
	var out []*skewCase
	for i, bug := range rules {
		for _, sp := range []bool{true, false} {
			out = append(out, &skewCase{label: leaseLabel(bug) + "-" + onOff(sp), leaseBug: bug, sp: sp, primary: i == 0})
		}
	}
	return out
}

func leaseLabel(bug bool) string {
	if bug {
		return "bug"
	}
	return "fixed"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (s *clockSkew) Run(ctx context.Context, env *Env) (*report.Result, error) {
	rig, err := newEurekaRig(env, s.eu.Scale)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	cases := s.cases()
	for _, c := range cases {
		cfg := s.eu.config()
		cfg.LeaseBug, cfg.SelfPreservation = c.leaseBug, c.sp
		if c.cluster, err = rig.startCluster(ctx, c.label, cfg, s.eu.Workers); err != nil {
			return nil, err
		}
	}
	rec := report.NewRecorder(time.Now().Add(startLead))
	mc := newModelClock(rig.scale, rec)
	tl, err := s.timeline(cases, mc)
	if err != nil {
		return nil, err
	}
	env.Printf("stepping s1 of %d clusters by +%s, %s before their first eviction run after %s; %s", len(cases), fmtModel(s.Skew),
		fmtModel(s.Lead), fmtModel(s.StepAfter), wallNote(s.eu.Scale, env.Duration))
	if err := tl.Run(ctx, rec.T0(), rec.MarkAt); err != nil {
		return nil, fmt.Errorf("stepping clocks: %w", err)
	}
	if err := clock.SleepUntil(ctx, rec.T0().Add(mc.real(env.Duration))); err != nil {
		return nil, err
	}
	run, err := s.collect(cases, rec, mc)
	if err != nil {
		return nil, err
	}
	run.duration = env.Duration
	return s.judge(run), nil
}

// timeline steps s1 of each cluster Lead before its first eviction run
// after StepAfter (the server reports its next run; runs come every
// eviction interval).
func (s *clockSkew) timeline(cases []*skewCase, mc modelClock) (fault.Timeline, error) {
	every := s.eu.config().EvictionInterval
	var tl fault.Timeline
	for _, c := range cases {
		st, err := c.cluster.servers[0].Stats()
		if err != nil {
			return nil, fmt.Errorf("reading the eviction schedule of %s: %w", c.cluster.servers[0].Name, err)
		}
		next := mc.ofModel(st.NextEviction)
		for next-s.Lead < s.StepAfter {
			next += every
		}
		tl = append(tl, fault.Step{At: mc.real(next - s.Lead), Fault: fault.EurekaClockStep{Server: c.cluster.servers[0], Step: s.Skew}})
	}
	return tl, nil
}

func (s *clockSkew) collect(cases []*skewCase, rec *report.Recorder, mc modelClock) (*skewRun, error) {
	run := &skewRun{factor: mc.factor}
	marks := rec.Marks()
	for _, c := range cases {
		hs, err := histories(c.cluster.servers)
		if err != nil {
			return nil, err
		}
		relHistories(mc, hs)
		r := skewResult{label: c.label, leaseBug: c.leaseBug, sp: c.sp, primary: c.primary, peers: map[string]eureka.History{},
			workers: s.eu.Workers, capLimit: eureka.EvictionLimit(s.eu.Workers, c.cluster.cfg.RenewalPercent)}
		for name, h := range hs {
			if name == c.cluster.servers[0].Name {
				r.skewed = h
			} else {
				r.peers[name] = h
			}
		}
		if m, ok := report.MarkNamed(marks, fault.EurekaClockStep{Server: c.cluster.servers[0], Step: s.Skew}.Name()); ok {
			r.stepAt, r.stepped = mc.ofReal(m.At), true
		}
		run.cases = append(run.cases, r)
	}
	return run, nil
}
