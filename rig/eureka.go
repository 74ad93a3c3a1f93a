package rig

import (
	"context"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/eureka"
	"sdchaos/history"
	"sdchaos/ports"
)

// Eureka is the world of the Eureka experiments: clusters of 3 model
// servers (each its own process, peer replication), their workers
// (in-process instances that register, renew and answer tasks) and
// fetch-only clients (schedulers). The server processes belong to the run's
// supervisor; the in-process clients and workers to the rig.
type Eureka struct {
	env     *Env
	Scale   eureka.Scale
	alloc   *ports.Allocator
	dir     string
	clients []*eureka.Client
	workers []*eureka.Worker
}

// EurekaCluster is one set of peer servers with its workers.
type EurekaCluster struct {
	Label   string
	Cfg     eureka.Config
	Servers []*eureka.ServerProc
	URLs    []string
	Workers []*eureka.Worker
	// Link is the workers' path to the servers (a partition cuts it).
	Link *eureka.Link
}

// NewEureka returns a rig whose model time runs factor times faster than real time.
func NewEureka(env *Env, factor float64) (*Eureka, error) {
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
	return &Eureka{env: env, Scale: eureka.NewScale(time.Now(), factor), alloc: ports.New(env.PortBase, "--port-base"), dir: dir}, nil
}

// StartEurekaRun starts a rig and one cluster of cfg with workers workers,
// and lets registration and replication settle for 2 s of model time. The
// caller closes the rig.
func StartEurekaRun(ctx context.Context, env *Env, factor float64, cfg eureka.Config, workers int) (*Eureka, *EurekaCluster, error) {
	r, err := NewEureka(env, factor)
	if err != nil {
		return nil, nil, err
	}
	cl, err := r.StartCluster(ctx, "", cfg, workers)
	if err == nil {
		err = r.Settle(ctx, 2*time.Second)
	}
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return r, cl, nil
}

// Close stops every in-process client and worker (the server processes are
// stopped by the supervisor).
func (r *Eureka) Close() {
	for _, w := range r.workers {
		w.Crash()
	}
	for _, c := range r.clients {
		c.Stop()
	}
}

// StartCluster starts 3 servers and n workers, each worker with its own
// (seeded) order of the servers and random heartbeat phase.
func (r *Eureka) StartCluster(ctx context.Context, label string, cfg eureka.Config, n int) (*EurekaCluster, error) {
	sup, err := r.env.Supervisor()
	if err != nil {
		return nil, err
	}
	c := &EurekaCluster{Label: label, Cfg: cfg, Link: &eureka.Link{}}
	start := time.Now()
	c.Servers, err = eureka.StartCluster(ctx, sup, r.alloc, eureka.ClusterSpec{Label: label, Size: 3, Config: cfg,
		Scale: r.Scale, Seed: r.env.Rand.Uint64(), LogDir: r.dir})
	if err != nil {
		return nil, fmt.Errorf("starting eureka servers %s: %w", label, err)
	}
	for _, s := range c.Servers {
		c.URLs = append(c.URLs, s.URL)
	}
	for i := range n {
		if err := r.startWorker(ctx, c, fmt.Sprintf("w%02d", i+1)); err != nil {
			return nil, err
		}
	}
	name := label
	if name == "" {
		name = "cluster"
	}
	r.env.Printf("eureka %s: 3 servers and %d workers up in %.2f s", name, n, time.Since(start).Seconds())
	return c, nil
}

func (r *Eureka) startWorker(ctx context.Context, c *EurekaCluster, id string) error {
	port, err := r.alloc.Take("eureka worker " + c.Label + " " + id)
	if err != nil {
		return err
	}
	cc := r.ClientConfig(c, r.Shuffled(c.URLs), false)
	cc.Instance = eureka.Instance{App: "WORKER", ID: id}
	cc.Link = c.Link
	w, err := eureka.StartWorker(ctx, port, cc)
	if err != nil {
		return fmt.Errorf("starting %s: %w", id, err)
	}
	r.workers = append(r.workers, w)
	c.Workers = append(c.Workers, w)
	return nil
}

// ClientConfig returns a client of c with the given server order and
// seeded phases for its first heartbeat and periodic fetch.
func (r *Eureka) ClientConfig(c *EurekaCluster, order []string, fetch bool) eureka.ClientConfig {
	cfg := c.Cfg
	return eureka.ClientConfig{Servers: order, Config: cfg, Scale: r.Scale, Fetch: fetch,
		HeartbeatPhase: time.Duration(r.env.Rand.Int64N(int64(cfg.RenewInterval))),
		FetchPhase:     time.Duration(r.env.Rand.Int64N(int64(cfg.FetchInterval)))}
}

// Scheduler starts a fetch-only client of c (a scheduler's discovery
// client) fetching every fetchEvery, with the given server order.
func (r *Eureka) Scheduler(ctx context.Context, c *EurekaCluster, order []string, fetchEvery time.Duration) (*eureka.Client, error) {
	cc := r.ClientConfig(c, order, true)
	cc.Config.FetchInterval = fetchEvery
	cc.FetchPhase = time.Duration(r.env.Rand.Int64N(int64(fetchEvery)))
	cl := eureka.NewClient(cc)
	if err := cl.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting a scheduler: %w", err)
	}
	r.clients = append(r.clients, cl)
	return cl, nil
}

// Dispatcher returns a task loop named name over a scheduler's cached
// registry, retrying a failed task on up to retries other workers.
func (r *Eureka) Dispatcher(name string, rate float64, retries int, sched *eureka.Client) *caller.Dispatcher {
	return caller.NewDispatcher(caller.DispatcherConfig{Name: name, Rate: rate, Retries: retries, Seed: r.env.Rand.Uint64(),
		Instances: func() []caller.Endpoint {
			insts := sched.Instances()
			out := make([]caller.Endpoint, len(insts))
			for i, in := range insts {
				out[i] = caller.Endpoint{ID: in.ID, Addr: in.Addr}
			}
			return out
		}})
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
func (c *EurekaCluster) ServerAt(url string) *eureka.ServerProc {
	for _, s := range c.Servers {
		if s.URL == url {
			return s
		}
	}
	return c.Servers[0]
}

// Histories reads every live server's history (a killed server is skipped).
func Histories(servers []*eureka.ServerProc) (map[string]eureka.History, error) {
	out := map[string]eureka.History{}
	for _, s := range servers {
		if !s.Alive() {
			continue
		}
		h, err := s.History()
		if err != nil {
			return nil, fmt.Errorf("reading the history of %s: %w", s.Name, err)
		}
		out[s.Name] = h
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
func NewModelClock(scale eureka.Scale, rec *history.Recorder) ModelClock {
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
func (m ModelClock) RelHistories(hs map[string]eureka.History) {
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
func (m ModelClock) RelFetches(evs []eureka.FetchEvent) []eureka.FetchEvent {
	out := make([]eureka.FetchEvent, len(evs))
	for i, e := range evs {
		e.At = m.OfModel(e.At)
		out[i] = e
	}
	return out
}
