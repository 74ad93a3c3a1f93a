package eurekaarticle

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
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
		Name:      "eureka-drill",
		Article:   "Eureka article 4.3",
		Summary:   "one Eureka server down, some workers really down, latency on the rest: task success per number of retries",
		Help: `Setup: 3 Eureka model servers (own processes), --workers workers, and one scheduler per
--retries value (default 0, 1, 3), all stuck to the same server and fetching every --fetch,
each sending --rate tasks/s (real time) to a worker picked at random from its cached registry and
retrying a failed task on other workers (never the same twice) up to R times. At --fault-at, at
once: the schedulers' server is SIGKILLed, --dead of the workers really die, and --latency is
added to every request the two remaining servers handle (peers' replication included). All
durations except --rate are model time; --time-scale sets model seconds per real second.

Measured: the success rate per R over the tasks sent after the faults while the schedulers'
registries still list the dead workers, beside the theory 1 − dead^(R+1) (independent picks) and
the exact value for distinct picks, 1 − C(k, R+1)/C(n, R+1); the same in the first 30 model
seconds after the faults (failed share of the fewest retries, share of tasks retried on another
worker with the most); per 30 model seconds; and the remaining servers' state.

Bands: each success rate within 4σ (+0.5 %) of the exact value for its number of tasks; in the
first 30 s, the fewest retries' failed share within 4σ of C(k, R+1)/C(n, R+1), and the share of
tasks whose first pick was dead (retried) within 4σ of k/n. With R ≥ 3 and a theory whose band
lies above 99 %, success must be at least 99 %. No task counted → invalid.

Article: "sporadic failures in the first 30 s, retried onto other workers; with at least 3
retries per task the job success rate stayed above 99 %".`,
		New: func() scenarios.Config {
			return &eurekaDrill{eu: defaultEurekaParams(4), Dead: 0.2, Latency: 200 * time.Millisecond,
				Retries: scenarios.IntList{0, 1, 3}, Rate: 40, FaultAt: 40 * time.Second, Fetch: 30 * time.Second}
		},
	})
}

// eurekaDrill is the Eureka article's test 4.3.
type eurekaDrill struct {
	eu      eurekaParams
	Dead    float64
	Latency time.Duration
	Retries scenarios.IntList
	Rate    float64
	FaultAt time.Duration
	Fetch   time.Duration
}

// drillData is what a drill stores beside its ops (one scheduler's tasks
// per R) and events (kill, crash, latency): each scheduler's fetches and
// the remaining servers' state at the end. Times are model time from the
// recorder's zero.
type drillData struct {
	modelRun
	Fetches map[string][]eurekamodel.FetchEvent `json:"fetches"`
	Servers map[string]eurekamodel.ControlStats `json:"servers"`
}

func (s *eurekaDrill) Defaults(c *scenarios.Common) { c.Duration = s.FaultAt + 2*time.Minute }

func (s *eurekaDrill) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.Float64Var(&s.Dead, "dead", s.Dead, "share of the workers that really die")
	fs.DurationVar(&s.Latency, "latency", s.Latency, "latency added to the remaining servers (model time)")
	fs.Var(&s.Retries, "retries", "comma-separated retry counts, one scheduler each")
	scenarios.BindRate(fs, &s.Rate, "tasks of each scheduler (real time)")
	fs.DurationVar(&s.FaultAt, "fault-at", s.FaultAt, "when the faults start (model time)")
	fs.DurationVar(&s.Fetch, "fetch", s.Fetch, "registry fetch interval of the schedulers (model time)")
}

func (s *eurekaDrill) Validate(c scenarios.Common) error {
	if err := s.eu.validate(c, s.Fetch); err != nil {
		return err
	}
	if err := scenarios.ValidateRate(s.Rate, 1000); err != nil {
		return err
	}
	dead := s.deadCount()
	switch {
	case s.Dead <= 0 || s.Dead >= 1 || dead < 1 || dead >= s.eu.Workers:
		return scenarios.Usagef("--dead (%g) must leave at least one dead and one live worker of --workers %d", s.Dead, s.eu.Workers)
	case s.Latency < 0:
		return scenarios.Usagef("--latency (%s) must not be negative", s.Latency)
	case len(s.Retries) == 0 || slices.Min(s.Retries) < 0 || slices.Max(s.Retries) >= s.eu.Workers:
		return scenarios.Usagef("--retries (%s) must be within [0, --workers)", s.Retries.String())
	case s.Fetch <= 0:
		return scenarios.Usagef("--fetch (%s) must be positive", s.Fetch)
	case s.FaultAt < 30*time.Second:
		return scenarios.Usagef("--fault-at (%s) must be at least 30s (every worker renews once before the faults)", s.FaultAt)
	case c.Duration < s.FaultAt+30*time.Second:
		return scenarios.Usagef("--duration (%s) must be at least --fault-at (%s) + 30s", c.Duration, s.FaultAt)
	}
	return nil
}

func (s *eurekaDrill) deadCount() int { return int(math.Round(s.Dead * float64(s.eu.Workers))) }

// retryName names the scheduler retrying r times ("R=3").
func retryName(r int) string { return fmt.Sprintf("R=%d", r) }

// Run is the plan: one scheduler per R, all stuck to one server; at
// --fault-at that server dies, the dead workers crash and the other
// servers slow down, while the schedulers dispatch tasks.
func (s *eurekaDrill) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	var rest []eureka.EurekaServer
	return eureka.RunEureka(ctx, env, s.eu.plan(env, []eureka.ClusterSpec{{Config: s.eu.config(), Workers: s.eu.Workers}},
		s.schedulers,
		func(w *eureka.EurekaWorld) (fault.Timeline, error) {
			cl := w.Clusters[0]
			victim := cl.ServerAt(w.Schedulers[0].QueryServer())
			var dead []eureka.WorkerTarget
			dead, rest = s.pick(env, cl, victim)
			at := w.Clock.Real(s.FaultAt)
			env.Printf("at %s (model): kill %s, crash %d workers, +%s on the others; %s", eurekamodel.FormatModel(s.FaultAt), victim.Name(),
				len(dead), s.Latency, eurekamodel.WallNote(s.eu.Scale, env.Duration))
			return fault.Timeline{
				{At: at, Fault: eureka.KillEurekaServer{Server: victim}},
				{At: at, Fault: eureka.CrashEurekaWorkers{Workers: dead}},
				{At: at, Fault: eureka.EurekaLatency{Servers: servers(rest), Delay: s.Latency}},
			}, nil
		},
		func(w *eureka.EurekaWorld) (any, error) {
			data := drillData{modelRun: newModelRun(w, env.Duration), Fetches: map[string][]eurekamodel.FetchEvent{}, Servers: map[string]eurekamodel.ControlStats{}}
			for _, sc := range w.Schedulers {
				data.Fetches[sc.Name()] = w.Clock.RelFetches(sc.Fetches())
			}
			for _, sv := range rest {
				if st, err := sv.Stats(); err == nil {
					data.Servers[sv.Name()] = st
				}
			}
			return data, nil
		}))
}

// schedulers starts one scheduler per R, all with the same server order
// (the first one, R = --retries[0], is the one whose server dies).
func (s *eurekaDrill) schedulers(ctx context.Context, w *eureka.EurekaWorld) ([]eureka.EurekaScheduler, error) {
	cl := w.Clusters[0]
	order := w.Shuffled(cl.URLs)
	var out []eureka.EurekaScheduler
	for _, k := range s.Retries {
		sc, err := w.Scheduler(ctx, cl, eureka.SchedulerSpec{Name: retryName(k), Order: order, Fetch: s.Fetch, Rate: s.Rate, Retries: k})
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// servers turns the rig's servers into what the faults act on.
func servers(ss []eureka.EurekaServer) []eureka.ServerTarget {
	out := make([]eureka.ServerTarget, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// pick chooses the dead workers (seeded) and the servers left running.
func (s *eurekaDrill) pick(env *scenarios.Env, cl *eureka.EurekaCluster, victim eureka.EurekaServer) ([]eureka.WorkerTarget, []eureka.EurekaServer) {
	var dead []eureka.WorkerTarget
	for _, i := range env.Rand.Perm(len(cl.Workers))[:s.deadCount()] {
		dead = append(dead, cl.Workers[i])
	}
	var rest []eureka.EurekaServer
	for _, sv := range cl.Servers {
		if sv != victim {
			rest = append(rest, sv)
		}
	}
	return dead, rest
}
