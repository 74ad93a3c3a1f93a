//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"time"

	"sdchaos/eureka"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "eureka-drill",
		Article: "Eureka article 4.3",
		Summary: "one Eureka server down, some workers really down, latency on the rest: task success per number of retries",
		Help: `Setup: 3 Eureka model servers (own processes), --workers workers, and one scheduler per
--retries value (default 0, 1, 3), all stuck to the same server and fetching every --fetch,
each sending --rate tasks/s (real time) to a worker picked at random from its cached registry and
retrying a failed task on other workers (never the same twice) up to R times. At --fault-at, at
once: the schedulers' server is SIGKILLed, --dead of the workers really die, and --latency is
added to every request the two remaining servers handle (peers' replication included). All
durations except --rate are model time; --time-scale sets model seconds per real second.

Measured: the success rate per R over the tasks sent after the faults while the schedulers'
registries still list the dead workers, beside the theory 1 − dead^(R+1) (independent picks) and
the exact value for distinct picks; per 30 model seconds; and the remaining servers' state.

Reproduced when: each success rate is within 4σ (+0.5 %) of the exact value for its number of
tasks, and R = 3 reaches 99 % (article: "with at least 3 retries the job success rate stayed
above 99 %").`,
		New: func() Config {
			return &eurekaDrill{eu: defaultEurekaParams(4), Dead: 0.2, Latency: 200 * time.Millisecond,
				Retries: IntList{0, 1, 3}, Rate: 40, FaultAt: 40 * time.Second, Fetch: 30 * time.Second}
		},
	})
}

// eurekaDrill is the Eureka article's test 4.3.
type eurekaDrill struct {
	eu      eurekaParams
	Dead    float64
	Latency time.Duration
	Retries IntList
	Rate    float64
	FaultAt time.Duration
	Fetch   time.Duration
}

func (s *eurekaDrill) Defaults(c *Common) { c.Duration = s.FaultAt + 2*time.Minute }

func (s *eurekaDrill) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.Float64Var(&s.Dead, "dead", s.Dead, "share of the workers that really die")
	fs.DurationVar(&s.Latency, "latency", s.Latency, "latency added to the remaining servers (model time)")
	fs.Var(&s.Retries, "retries", "comma-separated retry counts, one scheduler each")
	fs.Float64Var(&s.Rate, "rate", s.Rate, "tasks per real second of each scheduler")
	fs.DurationVar(&s.FaultAt, "fault-at", s.FaultAt, "when the faults start (model time)")
	fs.DurationVar(&s.Fetch, "fetch", s.Fetch, "registry fetch interval of the schedulers (model time)")
}

func (s *eurekaDrill) Validate(c Common) error {
	if err := s.eu.validate(); err != nil {
		return err
	}
	dead := s.deadCount()
	switch {
	case s.Dead <= 0 || s.Dead >= 1 || dead < 1 || dead >= s.eu.Workers:
		return Usagef("--dead (%g) must leave at least one dead and one live worker of --workers %d", s.Dead, s.eu.Workers)
	case s.Latency < 0:
		return Usagef("--latency (%s) must not be negative", s.Latency)
	case len(s.Retries) == 0 || slices.Min(s.Retries) < 0 || slices.Max(s.Retries) >= s.eu.Workers:
		return Usagef("--retries (%s) must be within [0, --workers)", s.Retries.String())
	case s.Rate <= 0 || s.Rate > 1000:
		return Usagef("--rate (%g) must be within (0, 1000]", s.Rate)
	case s.Fetch <= 0:
		return Usagef("--fetch (%s) must be positive", s.Fetch)
	case s.FaultAt < 30*time.Second:
		return Usagef("--fault-at (%s) must be at least 30s (every worker renews once before the faults)", s.FaultAt)
	case c.Duration < s.FaultAt+30*time.Second:
		return Usagef("--duration (%s) must be at least --fault-at (%s) + 30s", c.Duration, s.FaultAt)
	}
	return nil
}

func (s *eurekaDrill) deadCount() int { return int(math.Round(s.Dead * float64(s.eu.Workers))) }

func retryName(r int) string { return fmt.Sprintf("R=%d", r) }

// drillRun is what a drill recorded; times are model time from the recorder's zero.
type drillRun struct {
	factor   float64
	workers  int
	dead     []string
	faultAt  time.Duration
	faultOK  bool
	duration time.Duration
	ops      []report.Op
	mc       modelClock
	fetches  map[string][]eureka.FetchEvent
	killed   string
	servers  map[string]eureka.ControlStats // remaining servers at the end
}

func (s *eurekaDrill) Run(ctx context.Context, env *Env) (*report.Result, error) {
	rig, cl, err := startEurekaRun(ctx, env, s.eu)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	order := rig.shuffled(cl.urls)
	var ds []*dispatcher
	for _, r := range s.Retries {
		c, err := rig.scheduler(ctx, cl, order, s.Fetch)
		if err != nil {
			return nil, err
		}
		ds = append(ds, newDispatcher(retryName(r), s.Rate, r, c, env.Rand.Uint64()))
	}
	victim := serverAt(cl, ds[0].client.QueryServer())
	dead, rest := s.pick(env, cl, victim)
	rec := report.NewRecorder(time.Now().Add(startLead))
	mc := newModelClock(rig.scale, rec)
	at := mc.real(s.FaultAt)
	tl := fault.Timeline{
		{At: at, Fault: fault.KillEurekaServer{Server: victim}},
		{At: at, Fault: fault.CrashEurekaWorkers{Workers: dead}},
		{At: at, Fault: fault.EurekaLatency{Servers: rest, Delay: s.Latency}},
	}
	env.Printf("at %s (model): kill %s, crash %d workers, +%s on the others; %s", fmtModel(s.FaultAt), victim.Name,
		len(dead), s.Latency, wallNote(s.eu.Scale, env.Duration))
	if err := runDispatch(ctx, rec, ds, tl, mc.real(env.Duration)); err != nil {
		return nil, fmt.Errorf("running the drill: %w", err)
	}
	run := s.collect(rec, mc, ds, dead, victim, rest)
	run.duration = env.Duration
	return s.judge(run), nil
}

// pick chooses the dead workers (seeded) and the servers left running.
func (s *eurekaDrill) pick(env *Env, cl *eurekaCluster, victim *eureka.ServerProc) ([]*eureka.Worker, []*eureka.ServerProc) {
	var dead []*eureka.Worker
	for _, i := range env.Rand.Perm(len(cl.workers))[:s.deadCount()] {
		dead = append(dead, cl.workers[i])
	}
	var rest []*eureka.ServerProc
	for _, sv := range cl.servers {
		if sv != victim {
			rest = append(rest, sv)
		}
	}
	return dead, rest
}

func (s *eurekaDrill) collect(rec *report.Recorder, mc modelClock, ds []*dispatcher, dead []*eureka.Worker,
	victim *eureka.ServerProc, rest []*eureka.ServerProc) *drillRun {
	run := &drillRun{factor: mc.factor, workers: s.eu.Workers, ops: rec.Ops(), mc: mc, killed: victim.Name,
		fetches: map[string][]eureka.FetchEvent{}, servers: map[string]eureka.ControlStats{}}
	for _, w := range dead {
		run.dead = append(run.dead, w.ID)
	}
	for _, d := range ds {
		run.fetches[d.name] = relFetches(mc, d.client.Fetches())
	}
	for _, sv := range rest {
		if st, err := sv.Stats(); err == nil {
			run.servers[sv.Name] = st
		}
	}
	if m, ok := report.MarkNamed(rec.Marks(), "SIGKILL"); ok {
		run.faultAt, run.faultOK = mc.ofReal(m.At), true
	}
	return run
}
