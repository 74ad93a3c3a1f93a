//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/eureka"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "self-preservation",
		Article: "Eureka article 4.2",
		Summary: "partition every worker from the Eureka servers: self-preservation on vs off, and a worker that really dies meanwhile",
		Help: `Setup: two clusters side by side, each of 3 Eureka model servers (own processes) and --workers
workers: "on" with self-preservation, "off" without. At --partition-at (plus a seeded phase within
one minute) every worker of both clusters is cut off its servers (their requests time out; the
servers keep replicating to each other) for --partition. --death-at into the partition one worker
of "on" really dies. In "on", two schedulers (not partitioned) fetch every 30 s and send --rate
tasks/s (real time) to random workers: r0 without retries, r3 retrying up to 3 other workers.
All durations are model time; --time-scale sets how many model seconds pass per real second.

Measured per server and model minute: renewsLastMin, threshold, whether eviction runs, registry
size, evictions. on.engaged_min is the time from the partition to the first eviction run that
refuses to evict; dead_listed_min how long the dead worker stays in r0's registry.

Reproduced when: "on" engages within 2 eviction intervals (the source's rule; the article says
"after about 15 minutes") and evicts nobody during the partition; "off" empties every registry
by the source's cap (size − (int)(size × 0.85) per run) within the band derived from the lease
rule; the dead worker stays listed until the partition heals and is gone within 2 eviction
intervals + cache + fetch after it; r0 fails about 1 task in --workers while it is listed, r3 none.`,
		New: func() Config {
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

// spPhaseMax bounds the seeded phase added to --partition-at.
const spPhaseMax = time.Minute

func (s *selfPreservation) Defaults(c *Common) {
	c.Duration = s.PartitionAt + spPhaseMax + s.Partition + s.After
}

func (s *selfPreservation) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.DurationVar(&s.PartitionAt, "partition-at", s.PartitionAt, "when the partition starts (model time; a seeded phase of up to 1m is added)")
	fs.DurationVar(&s.Partition, "partition", s.Partition, "how long every worker is cut off the servers (model time)")
	fs.DurationVar(&s.DeathAt, "death-at", s.DeathAt, "when, into the partition, one worker of the 'on' cluster really dies (model time)")
	fs.DurationVar(&s.After, "after", s.After, "observation after the partition heals (model time)")
	fs.Float64Var(&s.Rate, "rate", s.Rate, "tasks per real second of each scheduler")
}

func (s *selfPreservation) Validate(c Common) error {
	if err := s.eu.validate(); err != nil {
		return err
	}
	need := s.PartitionAt + spPhaseMax + s.Partition + s.After
	switch {
	case s.eu.Workers < 2:
		return Usagef("--workers (%d) must be at least 2 (one dies)", s.eu.Workers)
	case s.PartitionAt < 2*time.Minute:
		return Usagef("--partition-at (%s) must be at least 2m (a full minute of renewals before it)", s.PartitionAt)
	case s.Partition <= 0 || s.DeathAt <= 0 || s.DeathAt >= s.Partition:
		return Usagef("--death-at (%s) must be within (0, --partition %s)", s.DeathAt, s.Partition)
	case s.After < 4*time.Minute:
		return Usagef("--after (%s) must be at least 4m (time for the dead worker to go)", s.After)
	case s.Rate <= 0 || s.Rate > 1000:
		return Usagef("--rate (%g) must be within (0, 1000]", s.Rate)
	case c.Duration < need:
		return Usagef("--duration (%s) must be at least --partition-at + 1m + --partition + --after (%s)", c.Duration, need)
	}
	return nil
}

// spRun is what a self-preservation run recorded; every time is model time
// from the recorder's zero.
type spRun struct {
	factor          float64
	cfg             eureka.Config
	workers         int
	partAt, partEnd time.Duration
	deathAt         time.Duration
	dead            string
	on, off         map[string]eureka.History
	fetches         []eureka.FetchEvent // r0's
	ops             []report.Op
	duration        time.Duration
	r0, r3          string
	mc              modelClock
	partOK, deathOK bool
}

func (s *selfPreservation) Run(ctx context.Context, env *Env) (*report.Result, error) {
	rig, err := newEurekaRig(env, s.eu.Scale)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	cfgOn := s.eu.config()
	cfgOff := cfgOn
	cfgOff.SelfPreservation = false
	on, err := rig.startCluster(ctx, "on", cfgOn, s.eu.Workers)
	if err != nil {
		return nil, err
	}
	off, err := rig.startCluster(ctx, "off", cfgOff, s.eu.Workers)
	if err != nil {
		return nil, err
	}
	if err := rig.settle(ctx, 2*time.Second); err != nil {
		return nil, err
	}
	order := rig.shuffled(on.urls)
	var ds []*dispatcher
	for _, r := range []int{0, 3} {
		c, err := rig.scheduler(ctx, on, order, cfgOn.FetchInterval)
		if err != nil {
			return nil, err
		}
		ds = append(ds, newDispatcher(fmt.Sprintf("r%d", r), s.Rate, r, c, env.Rand.Uint64()))
	}
	victim := on.workers[env.Rand.IntN(len(on.workers))]
	partAt := s.PartitionAt + time.Duration(env.Rand.Int64N(int64(spPhaseMax)))
	rec := report.NewRecorder(time.Now().Add(startLead))
	mc := newModelClock(rig.scale, rec)
	tl := fault.Timeline{
		{At: mc.real(partAt), For: mc.real(s.Partition), Fault: fault.PartitionEurekaClients{Link: on.link, Who: "'on' workers"}},
		{At: mc.real(partAt), For: mc.real(s.Partition), Fault: fault.PartitionEurekaClients{Link: off.link, Who: "'off' workers"}},
		{At: mc.real(partAt + s.DeathAt), Fault: fault.CrashEurekaWorkers{Workers: []*eureka.Worker{victim}}},
	}
	env.Printf("partition at %s for %s (model); worker %s of 'on' dies %s into it; %s", fmtModel(partAt), fmtModel(s.Partition),
		victim.ID, fmtModel(s.DeathAt), wallNote(s.eu.Scale, env.Duration))
	if err := runDispatch(ctx, rec, ds, tl, mc.real(env.Duration)); err != nil {
		return nil, fmt.Errorf("running the partition: %w", err)
	}
	run, err := s.collect(rec, mc, on, off, ds[0].client)
	if err != nil {
		return nil, err
	}
	run.dead, run.duration, run.cfg, run.workers = victim.ID, env.Duration, cfgOn, s.eu.Workers
	return s.judge(run), nil
}

// collect reads the servers' histories and the faults' times.
func (s *selfPreservation) collect(rec *report.Recorder, mc modelClock, on, off *eurekaCluster, r0 *eureka.Client) (*spRun, error) {
	run := &spRun{factor: mc.factor, mc: mc, ops: rec.Ops(), r0: "r0", r3: "r3", fetches: relFetches(mc, r0.Fetches())}
	var err error
	if run.on, err = histories(on.servers); err != nil {
		return nil, err
	}
	if run.off, err = histories(off.servers); err != nil {
		return nil, err
	}
	relHistories(mc, run.on)
	relHistories(mc, run.off)
	marks := rec.Marks()
	if m, ok := report.MarkNamed(marks, "partition"); ok {
		run.partAt, run.partOK = mc.ofReal(m.At), true
	}
	if m, ok := report.MarkNamed(marks, "healed: partition"); ok {
		run.partEnd = mc.ofReal(m.At)
	}
	if m, ok := report.MarkNamed(marks, "crash worker"); ok {
		run.deathAt, run.deathOK = mc.ofReal(m.At), true
	}
	return run, nil
}

// relHistories makes every time in hs relative to the recorder's zero.
func relHistories(mc modelClock, hs map[string]eureka.History) {
	for name, h := range hs {
		h.Start = mc.ofModel(h.Start)
		for i := range h.Evictions {
			h.Evictions[i].At = mc.ofModel(h.Evictions[i].At)
		}
		for i := range h.Events {
			h.Events[i].At = mc.ofModel(h.Events[i].At)
		}
		for i := range h.Thresholds {
			h.Thresholds[i].At = mc.ofModel(h.Thresholds[i].At)
		}
		hs[name] = h
	}
}
