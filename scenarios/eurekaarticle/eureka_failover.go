//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"sdchaos/eureka"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "eureka-failover",
		Article: "Eureka article 4.1",
		Summary: "kill -9 the Eureka server a scheduler is stuck to: time to switch, failed fetches, failed tasks, lost workers",
		Help: `Setup: 3 Eureka model servers (own processes, peer replication), --workers workers registered
(heartbeat every 30 s, each with its own shuffled server list), and one scheduler per --fetch
interval (default 15s and 30s), all with the same server list, dispatching --rate tasks/s (real
time) to workers picked at random from their cached registry. At --kill-at the server the
schedulers are stuck to is SIGKILLed. All durations except --rate are model time; --time-scale
sets how many model seconds pass per real second.

Measured: time from the kill to each scheduler's next successful fetch, failed fetch attempts,
failed tasks, and the fewest workers a scheduler's registry listed after the kill.

Reproduced when: each scheduler switches within its fetch interval (+1 s), with exactly the 2
failed attempts the source's RetryableEurekaHttpClient makes with 3 servers, no task fails and
no worker is lost. Article: "switches in about 15–30 s, scheduling never stops, no worker lost".`,
		New: func() Config {
			return &eurekaFailover{eu: defaultEurekaParams(5), Fetches: SecondsList{15 * time.Second, 30 * time.Second},
				Rate: 40, KillAt: 20 * time.Second}
		},
	})
}

// eurekaFailover is the Eureka article's test 4.1.
type eurekaFailover struct {
	eu      eurekaParams
	Fetches SecondsList
	Rate    float64
	KillAt  time.Duration
}

func (s *eurekaFailover) Defaults(c *Common) {
	c.Duration = s.KillAt + slices.Max(s.Fetches) + 30*time.Second
}

func (s *eurekaFailover) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.Var(&s.Fetches, "fetch", "comma-separated registry fetch intervals in seconds, one scheduler each (model time)")
	fs.Float64Var(&s.Rate, "rate", s.Rate, "tasks per real second of each scheduler")
	fs.DurationVar(&s.KillAt, "kill-at", s.KillAt, "when the schedulers' server is SIGKILLed (model time)")
}

func (s *eurekaFailover) Validate(c Common) error {
	if err := s.eu.validate(); err != nil {
		return err
	}
	switch {
	case s.eu.Workers < 1:
		return Usagef("--workers (%d) must be at least 1", s.eu.Workers)
	case len(s.Fetches) == 0 || slices.Min(s.Fetches) <= 0:
		return Usagef("--fetch (%s) must list positive intervals", s.Fetches.String())
	case s.Rate <= 0 || s.Rate > 1000:
		return Usagef("--rate (%g) must be within (0, 1000]", s.Rate)
	case s.KillAt <= 0:
		return Usagef("--kill-at (%s) must be positive", s.KillAt)
	case c.Duration < s.KillAt+slices.Max(s.Fetches)+5*time.Second:
		return Usagef("--duration (%s) must be at least --kill-at + the longest --fetch + 5s (%s)", c.Duration,
			s.KillAt+slices.Max(s.Fetches)+5*time.Second)
	}
	return nil
}

// failoverSched is what one scheduler saw.
type failoverSched struct {
	name    string
	fetch   time.Duration
	fetches []eureka.FetchEvent // At relative to the recorder's zero (model)
}

// failoverRun is what a run recorded.
type failoverRun struct {
	factor   float64
	workers  int
	killAt   time.Duration // model, from the recorder's zero
	killed   string
	duration time.Duration
	scheds   []failoverSched
	ops      []report.Op
	finalLen map[string]int // registry size on the surviving servers at the end
}

func (s *eurekaFailover) Run(ctx context.Context, env *Env) (*report.Result, error) {
	rig, cl, err := startEurekaRun(ctx, env, s.eu)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	order := rig.shuffled(cl.urls)
	var dispatchers []*dispatcher
	var clients []*eureka.Client
	for _, f := range s.Fetches {
		c, err := rig.scheduler(ctx, cl, order, f)
		if err != nil {
			return nil, err
		}
		clients = append(clients, c)
		dispatchers = append(dispatchers, newDispatcher(schedName(f), s.Rate, 0, c, env.Rand.Uint64()))
	}
	victim := serverAt(cl, clients[0].QueryServer())
	env.Printf("schedulers stuck to %s; killing it at %s (model), fetch every %s", victim.Name, s.KillAt, s.Fetches.String())
	rec := report.NewRecorder(time.Now().Add(startLead))
	mc := newModelClock(rig.scale, rec)
	tl := fault.Timeline{{At: mc.real(s.KillAt), Fault: fault.KillEurekaServer{Server: victim}}}
	if err := runDispatch(ctx, rec, dispatchers, tl, mc.real(env.Duration)); err != nil {
		return nil, fmt.Errorf("running the schedulers: %w", err)
	}
	run := &failoverRun{factor: s.eu.Scale, workers: s.eu.Workers, killAt: s.KillAt, killed: victim.URL,
		duration: env.Duration, ops: rec.Ops(), finalLen: finalSizes(cl)}
	if m, ok := report.MarkNamed(rec.Marks(), "SIGKILL"); ok {
		run.killAt = mc.ofReal(m.At)
	}
	for i, c := range clients {
		run.scheds = append(run.scheds, failoverSched{name: dispatchers[i].name, fetch: s.Fetches[i],
			fetches: relFetches(mc, c.Fetches())})
	}
	return s.judge(run), nil
}

func schedName(fetch time.Duration) string { return fmt.Sprintf("fetch %s", fmtModel(fetch)) }

func serverAt(c *eurekaCluster, url string) *eureka.ServerProc {
	for _, s := range c.servers {
		if s.URL == url {
			return s
		}
	}
	return c.servers[0]
}

// runDispatch runs the dispatchers for d (real) while the timeline fires.
func runDispatch(ctx context.Context, rec *report.Recorder, ds []*dispatcher, tl fault.Timeline, d time.Duration) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, di := range ds {
		g.Go(func() error { return di.run(gctx, rec, d) })
	}
	g.Go(func() error { return tl.Run(gctx, rec.T0(), rec.MarkAt) })
	return g.Wait()
}

func relFetches(mc modelClock, evs []eureka.FetchEvent) []eureka.FetchEvent {
	out := make([]eureka.FetchEvent, len(evs))
	for i, e := range evs {
		e.At = mc.ofModel(e.At)
		out[i] = e
	}
	return out
}

func finalSizes(c *eurekaCluster) map[string]int {
	out := map[string]int{}
	for _, s := range c.servers {
		if !s.Alive() {
			continue
		}
		if st, err := s.Stats(); err == nil {
			out[s.Name] = st.Size
		}
	}
	return out
}
