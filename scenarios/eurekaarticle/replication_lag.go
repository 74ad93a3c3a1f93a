package eurekaarticle

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

func init() {
	scenarios.Register(scenarios.Spec{
		ModelTime: true,
		Ground:    scenarios.LoopbackServers, // no etcd member: the Eureka servers stay on 127.0.0.1, no packet fault applies
		Name:      "replication-lag",
		Article:   "Eureka article 2.2",
		Summary:   "register on one Eureka server: when each peer has it, and when a client fetching from a peer sees it",
		Help: `Setup: 3 Eureka model servers (own processes) and --fetchers fetch-only clients, each stuck to
one of the two peers (s2, s3) and fetching every --fetch. --instances instances are registered on
s1 one at a time (probe steps of the timeline, one op each), at seeded moments at least 0.6 s
apart within --window, so that each replication task travels alone. --workers background workers
(default none) add heartbeats to the replication queues. All durations are model time;
--time-scale sets model seconds per real second.

Measured: for each instance, the delay from its registration on s1 to its registration on each
peer (peer_visible_ms), and to the first fetch of each client that lists it (client_visible_s).

Bands (Netflix/eureka source): a register is replicated to every peer in a batch released once
its oldest task has waited maxBatchingDelay (500 ms; PeerEurekaNode, AcceptorExecutor), so a
lone registration reaches a peer 500–750 ms later at the default time scale (one late wake-up, 50 ms
of real time, for the request on a shared host: 50 ms × --time-scale of model time);
a client sees it at its next fetch after the peer's read-only response cache
(ResponseCacheImpl, refreshed every 30 s, if --response-cache) has picked it up: at worst
batching + cache + fetch (+1 s), and with the cache at least fetch + batching over many samples.
Every registration must reach every peer and every client. No registration → invalid.

Article: "replication is asynchronous; two servers can briefly disagree"; "a client keeps a
local copy: full fetch at start, delta every 30 s". With the response cache the worst client
delay "differs" from the 30 s fetch interval: the cache adds up to 30 s
(responseCacheUpdateIntervalMs); --response-cache=false reproduces the article's 30 s.`,
		Variants: []scenarios.Variant{{Name: "no-cache", Args: []string{"--response-cache=false"},
			Why: "without the server's 30 s read-only response cache a client sees a registration within batching + one fetch: the article's delta every 30 s"}},
		New: func() scenarios.Config {
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

// lagData is what a replication-lag run stores beside its ops (one
// registration each) and events: every server's history and every
// client's fetches, in model time from the recorder's zero.
type lagData struct {
	modelRun
	// Origin is the server the instances register on.
	Origin   string                              `json:"origin"`
	Servers  map[string]eurekamodel.History      `json:"servers"`
	Fetchers map[string][]eurekamodel.FetchEvent `json:"fetchers"`
}

// opRegister is the caller of the registration ops.
const opRegister = "register"

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

func (s *replicationLag) Defaults(c *scenarios.Common) {
	s.realDefaults(*c)
	c.Duration = lagLead + s.Window + s.worstCase() + 10*time.Second
}

// realDefaults chooses real Eureka's time scale early (the duration
// follows from it) and, when --window was not given, widens the window so
// each registration's slot holds the real server's replication batching
// (500 ms of real time, hard-coded) twice over.
func (s *replicationLag) realDefaults(c scenarios.Common) {
	if s.eu.Backend != backendReal {
		return
	}
	_ = s.eu.realScale(c, []time.Duration{s.Fetch}) // Validate reports an error
	if !c.Explicit["window"] {
		s.Window = max(s.Window, time.Duration(max(s.Instances, 1))*2*(s.eu.config().BatchDelay+100*time.Millisecond))
	}
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

func (s *replicationLag) Validate(c scenarios.Common) error {
	s.realDefaults(c)
	if err := s.eu.validate(c, s.Fetch); err != nil {
		return err
	}
	minSlot := s.eu.config().BatchDelay + 100*time.Millisecond
	switch {
	case s.Instances < 1 || s.Instances > 500:
		return scenarios.Usagef("--instances (%d) must be within 1–500", s.Instances)
	case s.Fetchers < 1 || s.Fetchers > 50:
		return scenarios.Usagef("--fetchers (%d) must be within 1–50", s.Fetchers)
	case s.Fetch <= 0:
		return scenarios.Usagef("--fetch (%s) must be positive", s.Fetch)
	case s.slot() <= minSlot:
		return scenarios.Usagef("--window (%s) must leave more than %s per instance (%d instances)", s.Window, minSlot, s.Instances)
	case c.Duration < lagLead+s.Window+s.worstCase():
		return scenarios.Usagef("--duration (%s) must be at least 5s + --window + the worst case %s (%s)", c.Duration,
			s.worstCase(), lagLead+s.Window+s.worstCase())
	}
	return nil
}

// Run is the plan: the fetchers run; the registrations on s1 are probe
// steps at seeded moments; the servers' histories are read at the end.
func (s *replicationLag) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	var names []string
	return eureka.RunEureka(ctx, env, s.eu.plan(env, []eureka.ClusterSpec{{Config: s.eu.config(), Workers: s.eu.Workers}},
		func(ctx context.Context, w *eureka.EurekaWorld) ([]eureka.EurekaScheduler, error) {
			fs, ns, err := s.startFetchers(ctx, w, w.Clusters[0])
			names = ns
			return fs, err
		},
		func(w *eureka.EurekaWorld) (fault.Timeline, error) {
			cl := w.Clusters[0]
			env.Printf("%d registrations on %s within %s, %d clients fetching every %s from the peers; %s", s.Instances, cl.Servers[0].Name(),
				eurekamodel.FormatModel(s.Window), s.Fetchers, eurekamodel.FormatModel(s.Fetch), eurekamodel.WallNote(s.eu.Scale, env.Duration))
			return s.registrations(env, w, cl)
		},
		func(w *eureka.EurekaWorld) (any, error) {
			cl := w.Clusters[0]
			data := lagData{modelRun: newModelRun(w, env.Duration), Origin: cl.Servers[0].Name(), Fetchers: map[string][]eurekamodel.FetchEvent{}}
			var err error
			if data.Servers, err = w.ModelTimes(cl.Servers); err != nil {
				return nil, err
			}
			for i, f := range w.Schedulers {
				data.Fetchers[names[i]] = w.Clock.RelFetches(f.Fetches())
			}
			return data, nil
		}))
}

// startFetchers starts the fetching clients, alternately stuck to s2 and s3.
func (s *replicationLag) startFetchers(ctx context.Context, w *eureka.EurekaWorld, cl *eureka.EurekaCluster) ([]eureka.EurekaScheduler, []string, error) {
	var out []eureka.EurekaScheduler
	var names []string
	for i := range s.Fetchers {
		p := 1 + i%2
		name := fmt.Sprintf("client %d → %s", i+1, cl.Servers[p].Name())
		order := []string{cl.URLs[p], cl.URLs[3-p], cl.URLs[0]}
		c, err := w.Scheduler(ctx, cl, eureka.SchedulerSpec{Name: name, Order: order, Fetch: s.Fetch, App: "REG"})
		if err != nil {
			return nil, nil, err
		}
		out, names = append(out, c), append(names, name)
	}
	return out, names, nil
}

// registerTimeout bounds one registration (real time).
const registerTimeout = 10 * time.Second

// registrations returns one probe step per instance: it registers the
// instance on s1 at a seeded moment of its slot and records an op.
func (s *replicationLag) registrations(env *scenarios.Env, w *eureka.EurekaWorld, cl *eureka.EurekaCluster) (fault.Timeline, error) {
	var tl fault.Timeline
	span := s.slot() - s.eu.config().BatchDelay - 100*time.Millisecond
	for i := range s.Instances {
		at := lagLead + time.Duration(i)*s.slot() + time.Duration(env.Rand.Int64N(int64(span)))
		id := fmt.Sprintf("r%02d", i+1)
		reg, err := w.Backend.NewRegistrar(w.Eureka, cl, eurekamodel.Instance{App: "REG", ID: id, Addr: "127.0.0.1:9"}, cl.URLs)
		if err != nil {
			return nil, err
		}
		tl = append(tl, fault.Step{At: w.Clock.Real(at), Probe: fault.ProbeFunc{
			Event: history.Event{Kind: history.Probe, Targets: []string{id}, Label: "register " + id + " on " + cl.Servers[0].Name()},
			Func: func(ctx context.Context, rec *history.Recorder) error {
				rig.Op(ctx, rec, opRegister, id, registerTimeout, func(ctx context.Context) (int, string, error) {
					return 1, "", reg.Register(ctx)
				})
				return nil
			}}})
	}
	return tl, nil
}
