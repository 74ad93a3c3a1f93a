package eurekaarticle

import (
	"context"
	"flag"
	"math"
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
		Name:      "self-preservation",
		Article:   "Eureka article 4.2",
		Summary:   "partition every worker from the Eureka servers: self-preservation on vs off, and a worker that really dies meanwhile",
		Help: `Setup: two clusters side by side, each of 3 Eureka model servers (own processes) and --workers
workers: "on" with self-preservation, "off" without. At --partition-at (plus a seeded phase within
one minute) every worker of both clusters is cut off its servers (their requests time out; the
servers keep replicating to each other) for --partition. --death-at into the partition one worker
of "on" really dies. In "on", two schedulers (not partitioned) fetch every 30 s and send --rate
tasks/s (real time) to random workers: r0 without retries, r3 retrying up to 3 other workers.
All durations are model time; --time-scale sets how many model seconds pass per real second.

Measured per server and model minute: renewsLastMin, threshold, whether eviction runs, registry
size, evictions. on.engaged_min is the time from the partition to the first eviction run that
refuses to evict (last of the 3 servers); dead_listed_min how long the dead worker stays in r0's
registry after it died.

Bands (Netflix/eureka source): eviction is allowed only while renewsLastMin > threshold
(PeerAwareInstanceRegistryImpl.isLeaseExpirationEnabled), renewsLastMin being the last full
minute of renewals (MeasuredRate), so "on" engages at the eviction run after the first minute
bucket at or below the threshold: within 2 eviction intervals of the partition; it then evicts
nobody. "off" evicts at most size − (int)(size × 0.85) expired leases per run
(AbstractInstanceRegistry.evict) once the leases expire (2 × 90 s after the last renewal with
the source's Lease.renew() bug, 90 s without): every registry is empty within the band computed
from those rules (±6 s for replicated renewals, +0.5 s of timer lateness per run). The dead
worker stays listed until the partition heals, and is gone within 2 eviction intervals +
response cache (30 s, if on) + fetch (30 s) after it; r0 fails 1 task in --workers while it is
listed (binomial band, 4σ), r3 none.

Article: "after about 15 minutes the server logs self-preservation; no instance is evicted; a
worker that dies meanwhile is not evicted; callers recover only through their own retries". The
engagement check "differs": the source engages at the first eviction run whose last full minute
of renewals is ≤ the threshold; 15 min is renewalThresholdUpdateIntervalMs, how often the
expected count behind the threshold is recounted.

With --eureka real the servers are Netflix Eureka: scaled, the renewals window stays 60 s of
real time (hard-coded in MeasuredRate) while the lease scales, so partitioned leases can expire
before the drop in renewals shows; the bands follow that (evictions between expiry and the
engagement, up to the cap, from each server's recorded runs). The reference variant real-defaults
runs the real servers at their default intervals (time scale 1: 28.5 minutes).`,
		Variants: []scenarios.Variant{{Name: "real-defaults", Args: []string{"--eureka", "real", "--time-scale", "1"},
			Why: "real Netflix Eureka at its default intervals (time scale 1, about 29 minutes): the article's 'about 15 minutes' judged against the real server"}},
		New: func() scenarios.Config {
			return &selfPreservation{eu: defaultEurekaParams(40), PartitionAt: 150 * time.Second,
				Partition: 20 * time.Minute, DeathAt: 5 * time.Minute, After: 5 * time.Minute, Rate: 20}
		},
	})
}

// selfPreservation is the Eureka article's test 4.2.
type selfPreservation struct {
	eu                 eurekaParams
	PartitionAt        time.Duration
	Partition, DeathAt time.Duration
	After              time.Duration
	Rate               float64
}

// spData is what a self-preservation run stores beside its ops (r0's and
// r3's tasks) and events (the partitions, the death): every server's
// history per cluster and r0's fetches, in model time from the recorder's zero.
type spData struct {
	modelRun
	On  map[string]eurekamodel.History `json:"on"`
	Off map[string]eurekamodel.History `json:"off"`
	// R0Fetches and R3Fetches are the fetches of r0's and r3's discovery
	// clients (R3Fetches absent from histories recorded before it was kept).
	R0Fetches []eurekamodel.FetchEvent `json:"r0_fetches"`
	R3Fetches []eurekamodel.FetchEvent `json:"r3_fetches,omitempty"`
}

// The two clusters' labels (the servers are on-s1 …, off-s1 …; the
// events of a cluster's faults carry its label as their Cluster).
const (
	clusterOn  = "on"
	clusterOff = "off"
)

// The schedulers of the "on" cluster: without retries and with 3.
const (
	schedR0 = "r0"
	schedR3 = "r3"
)

// spPhaseMax bounds the seeded phase added to --partition-at.
const spPhaseMax = time.Minute

func (s *selfPreservation) Defaults(c *scenarios.Common) {
	s.realDefaults(*c)
	c.Duration = s.PartitionAt + spPhaseMax + s.Partition + s.After
}

// realDefaults chooses real Eureka's time scale early (the timeline follows
// from it) and, when --partition-at was not given, moves the partition past
// two full renewals windows of the real server: its window is 60 s of real
// time whatever the scale, and renewsLastMin reads 0 until the first one
// has passed (so protection is on from the start).
func (s *selfPreservation) realDefaults(c scenarios.Common) {
	if s.eu.Backend != backendReal {
		return
	}
	// Protection must be able to engage within the partition: two real
	// renewals windows (60 s each, ×scale in model time) and one eviction
	// interval must fit in it.
	s.eu.maxScale = math.Floor((s.Partition - s.eu.config().EvictionInterval).Seconds() / (2 * time.Minute.Seconds()))
	_ = s.eu.realScale(c, nil) // Validate reports an error
	cfg := s.eu.config()
	if !c.Explicit["partition-at"] {
		s.PartitionAt = max(s.PartitionAt, 2*cfg.RenewsBucket+30*time.Second)
	}
	if !c.Explicit["after"] { // long enough to see the dead worker go after the heal
		s.After = max(s.After, eurekamodel.StaleListingMax(cfg, cfg.FetchInterval)+time.Minute)
	}
}

func (s *selfPreservation) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.DurationVar(&s.PartitionAt, "partition-at", s.PartitionAt, "when the partition starts (model time; a seeded phase of up to 1m is added)")
	fs.DurationVar(&s.Partition, "partition", s.Partition, "how long every worker is cut off the servers (model time)")
	fs.DurationVar(&s.DeathAt, "death-at", s.DeathAt, "when, into the partition, one worker of the 'on' cluster really dies (model time)")
	fs.DurationVar(&s.After, "after", s.After, "observation after the partition heals (model time)")
	scenarios.BindRate(fs, &s.Rate, "tasks of each scheduler (real time)")
}

func (s *selfPreservation) Validate(c scenarios.Common) error {
	s.realDefaults(c)
	if err := s.eu.validate(c); err != nil {
		return err
	}
	bucket := s.eu.config().RenewsBucket
	if err := scenarios.ValidateRate(s.Rate, 1000); err != nil {
		return err
	}
	need := s.PartitionAt + spPhaseMax + s.Partition + s.After
	switch {
	case s.eu.Workers < 2:
		return scenarios.Usagef("--workers (%d) must be at least 2 (one dies)", s.eu.Workers)
	case s.PartitionAt < 2*bucket:
		return scenarios.Usagef("--partition-at (%s) must be at least %s (two renewals windows: a full one of renewals before it)", s.PartitionAt, eurekamodel.FormatModel(2*bucket))
	case s.Partition <= 0 || s.DeathAt <= 0 || s.DeathAt >= s.Partition:
		return scenarios.Usagef("--death-at (%s) must be within (0, --partition %s)", s.DeathAt, s.Partition)
	case s.After < 4*time.Minute:
		return scenarios.Usagef("--after (%s) must be at least 4m (time for the dead worker to go)", s.After)
	case c.Duration < need:
		return scenarios.Usagef("--duration (%s) must be at least --partition-at + 1m + --partition + --after (%s)", c.Duration, need)
	}
	return nil
}

// Run is the plan: both clusters partitioned from their workers at once;
// one worker of "on" dies during the partition; r0 and r3 dispatch tasks
// over the "on" registry throughout.
func (s *selfPreservation) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	cfgOn := s.eu.config()
	cfgOff := cfgOn
	cfgOff.SelfPreservation = false
	clusters := []eureka.ClusterSpec{{Label: clusterOn, Config: cfgOn, Workers: s.eu.Workers}, {Label: clusterOff, Config: cfgOff, Workers: s.eu.Workers}}
	return eureka.RunEureka(ctx, env, s.eu.plan(env, clusters,
		func(ctx context.Context, w *eureka.EurekaWorld) ([]eureka.EurekaScheduler, error) {
			on := w.Clusters[0]
			order := w.Shuffled(on.URLs)
			var out []eureka.EurekaScheduler
			for _, d := range []struct {
				name    string
				retries int
			}{{schedR0, 0}, {schedR3, 3}} {
				sc, err := w.Scheduler(ctx, on, eureka.SchedulerSpec{Name: d.name, Order: order, Fetch: on.Cfg.FetchInterval, Rate: s.Rate, Retries: d.retries})
				if err != nil {
					return nil, err
				}
				out = append(out, sc)
			}
			return out, nil
		},
		func(w *eureka.EurekaWorld) (fault.Timeline, error) {
			return s.timeline(env, w, w.Clusters[0], w.Clusters[1]), nil
		},
		func(w *eureka.EurekaWorld) (any, error) {
			data := spData{modelRun: newModelRun(w, env.Duration), R0Fetches: w.Clock.RelFetches(w.Schedulers[0].Fetches()),
				R3Fetches: w.Clock.RelFetches(w.Schedulers[1].Fetches())}
			var err error
			if data.On, err = w.ModelTimes(w.Clusters[0].Servers); err != nil {
				return nil, err
			}
			data.Off, err = w.ModelTimes(w.Clusters[1].Servers)
			return data, err
		}))
}

// timeline partitions both clusters' workers at a seeded moment and kills
// one seeded worker of "on" --death-at into the partition.
func (s *selfPreservation) timeline(env *scenarios.Env, w *eureka.EurekaWorld, on, off *eureka.EurekaCluster) fault.Timeline {
	victim := on.Workers[env.Rand.IntN(len(on.Workers))]
	partAt := s.PartitionAt + time.Duration(env.Rand.Int64N(int64(spPhaseMax)))
	env.Printf("partition at %s for %s (model); worker %s of 'on' dies %s into it; %s", eurekamodel.FormatModel(partAt),
		eurekamodel.FormatModel(s.Partition), victim.ID(), eurekamodel.FormatModel(s.DeathAt), eurekamodel.WallNote(s.eu.Scale, env.Duration))
	real := w.Clock.Real
	return fault.Timeline{
		{At: real(partAt), For: real(s.Partition), Fault: eureka.PartitionEurekaClients{Link: on.Link, Who: "'on' workers", Cluster: on.Label}},
		{At: real(partAt), For: real(s.Partition), Fault: eureka.PartitionEurekaClients{Link: off.Link, Who: "'off' workers", Cluster: off.Label}},
		{At: real(partAt + s.DeathAt), Fault: eureka.CrashEurekaWorkers{Workers: []eureka.WorkerTarget{victim}, Cluster: on.Label}},
	}
}
