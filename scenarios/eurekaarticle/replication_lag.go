//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"time"

	"sdchaos/clock"
	"sdchaos/eureka"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "replication-lag",
		Article: "Eureka article 2.2",
		Summary: "register on one Eureka server: when each peer has it, and when a client fetching from a peer sees it",
		Help: `Setup: 3 Eureka model servers (own processes) and --fetchers fetch-only clients, each stuck to
one of the two peers (s2, s3) and fetching every --fetch. --instances instances are registered on
s1 one at a time, at seeded moments at least 0.6 s apart within --window, so that each
replication task travels alone. --workers background workers (default none) add heartbeats to
the replication queues. All durations are model time; --time-scale sets model seconds per real
second.

Measured: for each instance, the delay from its registration on s1 to its registration on each
peer (peer_visible_ms), and to the first fetch of each client that lists it (client_visible_s).

Reproduced when: every peer delay is within the batching delay (500 ms) + 250 ms, and the
clients' worst delay stays within batching + response-cache refresh + fetch interval (+1 s);
with the response cache on, the worst delay exceeds fetch + batching, i.e. the cache's
staleness shows. Article: "replication is asynchronous; two servers can briefly disagree".`,
		New: func() Config {
			p := defaultEurekaParams(5)
			p.Workers = 0
			return &replicationLag{eu: p, Instances: 30, Fetchers: 4, Fetch: 30 * time.Second, Window: time.Minute}
		},
	})
}

// replicationLag measures peer replication and client visibility.
type replicationLag struct {
	eu        eurekaParams
	Instances int
	Fetchers  int
	Fetch     time.Duration
	Window    time.Duration
}

// lagLead is when the first registration slot starts (model time).
const lagLead = 5 * time.Second

// worstCase is the configured bound on client visibility: a replication
// batch's delay, the response cache's refresh interval (if on) and the fetch
// interval.
func (s *replicationLag) worstCase() time.Duration {
	cfg := s.eu.config()
	w := cfg.BatchDelay + s.Fetch
	if cfg.ResponseCache {
		w += cfg.CacheUpdate
	}
	return w
}

func (s *replicationLag) Defaults(c *Common) {
	c.Duration = lagLead + s.Window + s.worstCase() + 10*time.Second
}

func (s *replicationLag) Flags(fs *flag.FlagSet) {
	s.eu.bind(fs)
	fs.IntVar(&s.Instances, "instances", s.Instances, "instances registered on s1")
	fs.IntVar(&s.Fetchers, "fetchers", s.Fetchers, "fetching clients, alternately stuck to s2 and s3")
	fs.DurationVar(&s.Fetch, "fetch", s.Fetch, "registry fetch interval of the clients (model time)")
	fs.DurationVar(&s.Window, "window", s.Window, "span over which the registrations are spread (model time)")
}

// slot is the span each registration gets; a registration lands in the
// first slot − (batch delay + 100 ms) of its slot.
func (s *replicationLag) slot() time.Duration { return s.Window / time.Duration(max(s.Instances, 1)) }

func (s *replicationLag) Validate(c Common) error {
	if err := s.eu.validate(); err != nil {
		return err
	}
	minSlot := s.eu.config().BatchDelay + 100*time.Millisecond
	switch {
	case s.Instances < 1 || s.Instances > 500:
		return Usagef("--instances (%d) must be within 1–500", s.Instances)
	case s.Fetchers < 1 || s.Fetchers > 50:
		return Usagef("--fetchers (%d) must be within 1–50", s.Fetchers)
	case s.Fetch <= 0:
		return Usagef("--fetch (%s) must be positive", s.Fetch)
	case s.slot() <= minSlot:
		return Usagef("--window (%s) must leave more than %s per instance (%d instances)", s.Window, minSlot, s.Instances)
	case c.Duration < lagLead+s.Window+s.worstCase():
		return Usagef("--duration (%s) must be at least 5s + --window + the worst case %s (%s)", c.Duration,
			s.worstCase(), lagLead+s.Window+s.worstCase())
	}
	return nil
}

// lagRun is what a run recorded; times are model time from the recorder's zero.
type lagRun struct {
	factor   float64
	duration time.Duration
	origin   string
	servers  map[string]eureka.History
	fetchers map[string][]eureka.FetchEvent // by "fetcher i → sN"
	ids      []string
}

func (s *replicationLag) Run(ctx context.Context, env *Env) (*report.Result, error) {
	rig, cl, err := startEurekaRun(ctx, env, s.eu)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	fetchers, names, err := s.startFetchers(ctx, rig, cl)
	if err != nil {
		return nil, err
	}
	rec := report.NewRecorder(time.Now().Add(startLead))
	mc := newModelClock(rig.scale, rec)
	ids, err := s.register(ctx, env, rig, cl, rec, mc)
	if err != nil {
		return nil, err
	}
	if err := clock.SleepUntil(ctx, rec.T0().Add(mc.real(env.Duration))); err != nil {
		return nil, err
	}
	run := &lagRun{factor: s.eu.Scale, duration: env.Duration, origin: cl.servers[0].Name, ids: ids, fetchers: map[string][]eureka.FetchEvent{}}
	if run.servers, err = histories(cl.servers); err != nil {
		return nil, err
	}
	relHistories(mc, run.servers)
	for i, f := range fetchers {
		run.fetchers[names[i]] = relFetches(mc, f.Fetches())
	}
	return s.judge(run), nil
}

// startFetchers starts the fetching clients, alternately stuck to s2 and s3.
func (s *replicationLag) startFetchers(ctx context.Context, rig *eurekaRig, cl *eurekaCluster) ([]*eureka.Client, []string, error) {
	var out []*eureka.Client
	var names []string
	for i := range s.Fetchers {
		p := 1 + i%2
		order := []string{cl.urls[p], cl.urls[3-p], cl.urls[0]}
		c, err := rig.scheduler(ctx, cl, order, s.Fetch)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, c)
		names = append(names, fmt.Sprintf("client %d → %s", i+1, cl.servers[p].Name))
	}
	return out, names, nil
}

// register registers the instances on s1, one per slot at a seeded moment.
func (s *replicationLag) register(ctx context.Context, env *Env, rig *eurekaRig, cl *eurekaCluster, rec *report.Recorder, mc modelClock) ([]string, error) {
	var wg sync.WaitGroup
	errs := make(chan error, s.Instances)
	var ids []string
	span := s.slot() - s.eu.config().BatchDelay - 100*time.Millisecond
	for i := range s.Instances {
		at := lagLead + time.Duration(i)*s.slot() + time.Duration(env.Rand.Int64N(int64(span)))
		cc := rig.clientConfig(cl, cl.urls, false)
		cc.Instance = eureka.Instance{App: "REG", ID: fmt.Sprintf("r%02d", i+1), Addr: "127.0.0.1:9"}
		ids = append(ids, cc.Instance.ID)
		c := eureka.NewClient(cc)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if clock.SleepUntil(ctx, rec.T0().Add(mc.real(at))) == nil {
				if err := c.Register(ctx); err != nil {
					errs <- fmt.Errorf("registering %s: %w", cc.Instance.ID, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return ids, <-errs
}
