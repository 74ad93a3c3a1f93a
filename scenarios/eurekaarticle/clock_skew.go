package eurekaarticle

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

func init() {
	scenarios.Register(scenarios.Spec{
		ModelTime: true,
		Ground:    scenarios.LoopbackServers, // no etcd member: the Eureka servers stay on 127.0.0.1, no packet fault applies
		Name:      "clock-skew",
		Article:   "Eureka article 5.4",
		Summary:   "one Eureka server's clock steps forward while every worker keeps renewing: false evictions with self-preservation on and off",
		Help: `Setup: clusters of 3 Eureka model servers (own processes) with --workers workers each, with
self-preservation on and off; with --compare-lease (default) also a pair with the other lease rule
than --lease-bug. After --step-after, the wall clock of s1 of each cluster steps forward by --skew,
--lead before its next eviction run (the worst moment: few workers have renewed on the new
clock). The workers keep renewing throughout. All durations are model time; --time-scale sets
model seconds per real second.

Measured: evictions on the stepped server (all false: every worker is alive), its renewsLastMin
against the threshold at the run after the step, evictions on its peers, and how soon the
evicted workers are back on it.

Bands (Netflix/eureka source): a lease last renewed a ago looks expired after a forward step s iff
s > k × 90 s − a (Lease.isExpired on System.currentTimeMillis; k = 2 with the source's renew bug),
so false evictions are none when s ≤ k × 90 s − 30 s, all leases not renewed since the step
(capped at size − (int)(size × 0.85) per run) when s > k × 90 s, anything up to the cap in
between. renewsLastMin counts per minute of the monotonic timer (MeasuredRate on java.util.Timer,
which waits on relative delays) and every worker keeps renewing, so self-preservation does not
engage and "on" loses as many as "off". Evictions are not replicated: the peers evict nobody.
An evicted worker is back on s1 within one renew interval (+2 s): its next heartbeat gets 404 and
re-registers, or a peer's replicated heartbeat gets 404 and the peer registers it.

Article: "clock skew causes premature expiry, wrong renew times and false self-preservation".
The self-preservation check "differs": a wall-clock step does not move the minute buckets, so
renewsLastMin stays above the threshold and there is no (false) protection.`,
		New: func() scenarios.Config {
			eu := defaultEurekaParams(12)
			eu.clock = true // a real server's clock steps under libfaketime
			return &clockSkew{eu: eu, Skew: 2 * time.Minute, Lead: 5 * time.Second,
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

// skewData is what a clock-skew run stores beside its events (one clock
// step per cluster): each cluster's servers' histories, in model time from
// the recorder's zero.
type skewData struct {
	modelRun
	Cases []skewCase `json:"cases"`
}

// skewCase is one cluster of the grid.
type skewCase struct {
	Label            string `json:"label"`
	LeaseBug         bool   `json:"lease_bug"`
	SelfPreservation bool   `json:"self_preservation"`
	// Primary is set on the pair that uses --lease-bug (the other pair is the contrast).
	Primary bool `json:"primary"`
	// Server names the stepped server (s1 of the cluster).
	Server string                         `json:"server"`
	Skewed eurekamodel.History            `json:"skewed"`
	Peers  map[string]eurekamodel.History `json:"peers"`
}

func (s *clockSkew) Defaults(c *scenarios.Common) {
	s.realDefaults(*c)
	c.Duration = s.StepAfter + s.eu.config().EvictionInterval + s.Observe
}

// realDefaults chooses real Eureka's time scale early (the timeline follows
// from it), runs one lease rule (the real server's) and, when --step-after
// was not given, steps the clock after two full renewals windows of the
// real server (60 s of real time each, whatever the scale).
func (s *clockSkew) realDefaults(c scenarios.Common) {
	if s.eu.Backend != backendReal {
		return
	}
	_ = s.eu.realScale(c, nil) // Validate reports an error
	if !c.Explicit["step-after"] {
		s.StepAfter = max(s.StepAfter, 2*s.eu.config().RenewsBucket+30*time.Second)
	}
	if !c.Explicit["compare-lease"] {
		s.CompareLease = false // the real server has one lease rule
	}
}

func (s *clockSkew) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.DurationVar(&s.Skew, "skew", s.Skew, "forward step of s1's wall clock (model time)")
	fs.DurationVar(&s.Lead, "lead", s.Lead, "how long before s1's next eviction run the step happens (model time)")
	fs.DurationVar(&s.StepAfter, "step-after", s.StepAfter, "earliest step time (model time; 2 full minutes of renewals come first)")
	fs.DurationVar(&s.Observe, "observe", s.Observe, "observation after the eviction run that follows the step (model time)")
	fs.BoolVar(&s.CompareLease, "compare-lease", s.CompareLease, "also run a pair of clusters with the other lease rule")
}

func (s *clockSkew) Validate(c scenarios.Common) error {
	s.realDefaults(c)
	if err := s.eu.validate(c); err != nil {
		return err
	}
	if s.eu.Backend == backendReal && s.CompareLease {
		return scenarios.Usagef("--compare-lease with --eureka real: the real server has only the source's lease rule; only the model runs the other one")
	}
	cfg := s.eu.config()
	switch {
	case s.eu.Workers < 1:
		return scenarios.Usagef("--workers (%d) must be at least 1", s.eu.Workers)
	case s.Skew <= 0:
		return scenarios.Usagef("--skew (%s) must be a positive (forward) step", s.Skew)
	case s.Lead <= 0 || s.Lead >= cfg.EvictionInterval:
		return scenarios.Usagef("--lead (%s) must be within (0, the eviction interval %s)", s.Lead, cfg.EvictionInterval)
	case s.StepAfter < 2*cfg.RenewsBucket:
		return scenarios.Usagef("--step-after (%s) must be at least %s (two renewals windows)", s.StepAfter, eurekamodel.FormatModel(2*cfg.RenewsBucket))
	case s.Observe < cfg.RenewInterval+10*time.Second:
		return scenarios.Usagef("--observe (%s) must be at least the renew interval + 10s (%s)", s.Observe, cfg.RenewInterval+10*time.Second)
	case c.Duration < s.StepAfter+cfg.EvictionInterval+s.Observe:
		return scenarios.Usagef("--duration (%s) must be at least --step-after + 1m + --observe (%s)", c.Duration, s.StepAfter+cfg.EvictionInterval+s.Observe)
	}
	return nil
}

// leaseLabel names a lease rule.
func leaseLabel(bug bool) string {
	if bug {
		return "bug"
	}
	return "fixed"
}

// grid returns the clusters to run: --lease-bug's rule with self-preservation
// on and off, and with --compare-lease the same with the other rule.
func (s *clockSkew) grid() []skewCase {
	rules := []bool{s.eu.LeaseBug}
	if s.CompareLease {
		rules = append(rules, !s.eu.LeaseBug)
	}
	var out []skewCase
	for i, bug := range rules {
		for _, sp := range []bool{true, false} {
			out = append(out, skewCase{Label: leaseLabel(bug) + "-" + onOff(sp), LeaseBug: bug, SelfPreservation: sp, Primary: i == 0})
		}
	}
	return out
}

// Run is the plan: the clusters run side by side; s1 of each steps its
// clock --lead before an eviction run; the histories are read at the end.
func (s *clockSkew) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	cases := s.grid()
	var clusters []eureka.ClusterSpec
	for _, c := range cases {
		cfg := s.eu.config()
		cfg.LeaseBug, cfg.SelfPreservation = c.LeaseBug, c.SelfPreservation
		clusters = append(clusters, eureka.ClusterSpec{Label: c.Label, Config: cfg, Workers: s.eu.Workers})
	}
	return eureka.RunEureka(ctx, env, s.eu.plan(env, clusters, nil,
		func(w *eureka.EurekaWorld) (fault.Timeline, error) {
			env.Printf("stepping s1 of %d clusters by +%s, %s before their first eviction run after %s; %s", len(cases), eurekamodel.FormatModel(s.Skew),
				eurekamodel.FormatModel(s.Lead), eurekamodel.FormatModel(s.StepAfter), eurekamodel.WallNote(s.eu.Scale, env.Duration))
			return s.timeline(w.Clusters, w.Clock)
		},
		func(w *eureka.EurekaWorld) (any, error) {
			data := skewData{modelRun: newModelRun(w, env.Duration)}
			for i, c := range cases {
				c, err := s.collect(c, w, w.Clusters[i])
				if err != nil {
					return nil, err
				}
				data.Cases = append(data.Cases, c)
			}
			return data, nil
		}))
}

// timeline steps s1 of each cluster Lead before its first eviction run
// after StepAfter (the server reports its next run; runs come every
// eviction interval).
func (s *clockSkew) timeline(clusters []*eureka.EurekaCluster, clk eureka.ModelClock) (fault.Timeline, error) {
	every := s.eu.config().EvictionInterval
	var tl fault.Timeline
	for _, c := range clusters {
		st, err := c.Servers[0].Stats()
		if err != nil {
			return nil, fmt.Errorf("reading the eviction schedule of %s: %w", c.Servers[0].Name(), err)
		}
		next := clk.OfModel(st.NextEviction)
		for next-s.Lead < s.StepAfter {
			next += every
		}
		tl = append(tl, fault.Step{At: clk.Real(next - s.Lead), Fault: eureka.EurekaClockStep{Server: c.Servers[0], Step: s.Skew}})
	}
	return tl, nil
}

// collect reads one cluster's histories into its case.
func (s *clockSkew) collect(c skewCase, w *eureka.EurekaWorld, cl *eureka.EurekaCluster) (skewCase, error) {
	hs, err := w.ModelTimes(cl.Servers)
	if err != nil {
		return c, err
	}
	c.Server, c.Peers = cl.Servers[0].Name(), map[string]eurekamodel.History{}
	for name, h := range hs {
		if name == c.Server {
			c.Skewed = h
		} else {
			c.Peers[name] = h
		}
	}
	return c, nil
}
