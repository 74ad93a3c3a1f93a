package eureka

import (
	"context"
	"fmt"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/ports"
	"sdchaos/rig"
	"sdchaos/worlds/eureka/eurekamodel"
)

// Eureka is the world of the Eureka experiments: clusters of 3 peer servers
// (each its own process), their workers (in-process instances that
// register, renew and answer tasks) and schedulers (fetch-only discovery
// clients with task loops), run by a back-end: the Go model or real
// Eureka. Server processes belong to the run's supervisor; what runs in the
// harness belongs to the rig and stops at Close.
type Eureka struct {
	env     *rig.Env
	Backend EurekaBackend
	Scale   eurekamodel.Scale
	alloc   *ports.Allocator
	dir     string
	closers []func()
	// dispatchers counts the schedulers with a task loop.
	dispatchers int
}

// EurekaCluster is one set of peer servers with its workers.
type EurekaCluster struct {
	Label   string
	Cfg     eurekamodel.Config
	Servers []EurekaServer
	URLs    []string
	Workers []EurekaWorker
	// Link is the workers' path to the servers (a partition cuts it).
	Link *eurekamodel.Link
}

// NewEureka returns a rig on backend whose model time runs factor times
// faster than real time.
func NewEureka(env *rig.Env, backend EurekaBackend, factor float64) (*Eureka, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, err
	}
	dir, err := sup.TempDir("sdchaos-eureka-*", env.Keep)
	if err != nil {
		return nil, fmt.Errorf("creating the eureka log dir: %w", err)
	}
	if env.Keep {
		env.Printf("keeping eureka server logs in %s", dir)
	}
	return &Eureka{env: env, Backend: backend, Scale: eurekamodel.NewScale(time.Now(), factor), alloc: ports.New(env.PortBase, "--port-base"), dir: dir}, nil
}

// Env returns the run's environment.
func (r *Eureka) Env() *rig.Env { return r.env }

// Alloc returns the rig's port allocator (for a back-end's listeners).
func (r *Eureka) Alloc() *ports.Allocator { return r.alloc }

// LogDir returns the dir of the servers' and clients' logs.
func (r *Eureka) LogDir() string { return r.dir }

// Defer makes Close call f (stopping what a back-end runs in the harness).
func (r *Eureka) Defer(f func()) { r.closers = append(r.closers, f) }

// Close stops every in-process client and worker, last started first (the
// server processes are stopped by the supervisor).
func (r *Eureka) Close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
}

// StartCluster starts 3 servers and n workers, each worker with its own
// (seeded) order of the servers and random heartbeat phase.
func (r *Eureka) StartCluster(ctx context.Context, label string, cfg eurekamodel.Config, n int) (*EurekaCluster, error) {
	c := &EurekaCluster{Label: label, Cfg: cfg, Link: &eurekamodel.Link{}}
	start := time.Now()
	servers, err := r.Backend.StartServers(ctx, r, label, cfg)
	if err != nil {
		return nil, fmt.Errorf("starting eureka servers %s: %w", label, err)
	}
	c.Servers = servers
	for _, s := range c.Servers {
		c.URLs = append(c.URLs, s.URL())
	}
	for i := range n {
		id := fmt.Sprintf("w%02d", i+1)
		w, err := r.Backend.StartWorker(ctx, r, c, id, r.Shuffled(c.URLs))
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", id, err)
		}
		c.Workers = append(c.Workers, w)
	}
	name := label
	if name == "" {
		name = "cluster"
	}
	r.env.Printf("eureka %s (%s): 3 servers and %d workers up in %.2f s", name, r.Backend.Name(), n, time.Since(start).Seconds())
	return c, nil
}

// ClientConfig returns a client of c with the given server order and
// seeded phases for its first heartbeat and periodic fetch.
func (r *Eureka) ClientConfig(c *EurekaCluster, order []string, fetch bool) eurekamodel.ClientConfig {
	cfg := c.Cfg
	return eurekamodel.ClientConfig{Servers: order, Config: cfg, Scale: r.Scale, Fetch: fetch,
		HeartbeatPhase: time.Duration(r.env.Rand.Int64N(int64(cfg.RenewInterval))),
		FetchPhase:     time.Duration(r.env.Rand.Int64N(int64(cfg.FetchInterval)))}
}

// Scheduler starts a scheduler of c (a fetch-only discovery client and,
// with a rate, its task loop) on the rig's back-end.
func (r *Eureka) Scheduler(ctx context.Context, c *EurekaCluster, spec SchedulerSpec) (EurekaScheduler, error) {
	s, err := r.Backend.StartScheduler(ctx, r, c, spec)
	if err != nil {
		return nil, fmt.Errorf("starting scheduler %s: %w", spec.Name, err)
	}
	if spec.Rate > 0 {
		r.dispatchers++
	}
	return s, nil
}

// Shuffled returns urls in a seeded random order (the source shuffles the
// service URLs once per client).
func (r *Eureka) Shuffled(urls []string) []string {
	out := append([]string(nil), urls...)
	r.env.Rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Settle waits d of model time (replication and first renewals).
func (r *Eureka) Settle(ctx context.Context, d time.Duration) error {
	return clock.SleepUntil(ctx, time.Now().Add(r.Scale.Real(d)))
}

// ServerAt returns the server of c at url (the first one if none is).
func (c *EurekaCluster) ServerAt(url string) EurekaServer {
	for _, s := range c.Servers {
		if s.URL() == url {
			return s
		}
	}
	return c.Servers[0]
}

// Histories reads every live server's history (a killed server is skipped).
func Histories(servers []EurekaServer) (map[string]eurekamodel.History, error) {
	out := map[string]eurekamodel.History{}
	for _, s := range servers {
		if !s.Alive() {
			continue
		}
		h, err := s.History()
		if err != nil {
			return nil, fmt.Errorf("reading the history of %s: %w", s.Name(), err)
		}
		out[s.Name()] = h
	}
	return out, nil
}

// ModelClock converts between a recorder's real offsets and model time
// relative to the recorder's time zero.
type ModelClock struct {
	Factor float64 `json:"factor"`
	// T0 is the model time (since model zero) of the recorder's time zero.
	T0 time.Duration `json:"t0_ns"`
}

// NewModelClock returns the clock of scale relative to rec's time zero.
func NewModelClock(scale eurekamodel.Scale, rec *history.Recorder) ModelClock {
	return ModelClock{Factor: scale.Factor, T0: scale.At(rec.T0())}
}

// OfReal converts a real offset from the recorder's zero to model time.
func (m ModelClock) OfReal(d time.Duration) time.Duration {
	return time.Duration(float64(d) * m.Factor)
}

// OfModel converts a model time since model zero to model time since the
// recorder's zero.
func (m ModelClock) OfModel(at time.Duration) time.Duration { return at - m.T0 }

// Real converts a model duration to real time.
func (m ModelClock) Real(d time.Duration) time.Duration { return time.Duration(float64(d) / m.Factor) }

// RelHistories makes every time in hs relative to the recorder's zero.
func (m ModelClock) RelHistories(hs map[string]eurekamodel.History) {
	for name, h := range hs {
		h.Start = m.OfModel(h.Start)
		for i := range h.Evictions {
			h.Evictions[i].At = m.OfModel(h.Evictions[i].At)
		}
		for i := range h.Events {
			h.Events[i].At = m.OfModel(h.Events[i].At)
		}
		for i := range h.Thresholds {
			h.Thresholds[i].At = m.OfModel(h.Thresholds[i].At)
		}
		hs[name] = h
	}
}

// RelFetches makes the fetch events' times relative to the recorder's zero.
func (m ModelClock) RelFetches(evs []eurekamodel.FetchEvent) []eurekamodel.FetchEvent {
	out := make([]eurekamodel.FetchEvent, len(evs))
	for i, e := range evs {
		e.At = m.OfModel(e.At)
		out[i] = e
	}
	return out
}
