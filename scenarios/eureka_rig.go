package scenarios

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/clock"
	"sdchaos/eureka"
	"sdchaos/ports"
	"sdchaos/report"
)

// eurekaParams are the model flags every Eureka scenario has.
type eurekaParams struct {
	Scale         float64
	LeaseBug      bool
	ResponseCache bool
	PeerTimeout   time.Duration
	Workers       int
}

func defaultEurekaParams(scale float64) eurekaParams {
	d := eureka.DefaultConfig()
	return eurekaParams{Scale: scale, LeaseBug: d.LeaseBug, ResponseCache: d.ResponseCache, PeerTimeout: d.PeerTimeout, Workers: 50}
}

func (p *eurekaParams) bind(fs *flag.FlagSet) {
	fs.Float64Var(&p.Scale, "time-scale", p.Scale, "model seconds per real second (every Eureka duration, --duration included, is model time)")
	fs.BoolVar(&p.LeaseBug, "lease-bug", p.LeaseBug, "reproduce Lease.renew()'s double duration (false: a renewed lease expires lease-duration after its last renewal)")
	fs.BoolVar(&p.ResponseCache, "response-cache", p.ResponseCache, "serve fetches from the read-only response cache refreshed every 30 s")
	fs.DurationVar(&p.PeerTimeout, "peer-timeout", p.PeerTimeout, "timeout of a replication request between servers (model time; the article recommends 1s)")
	fs.IntVar(&p.Workers, "workers", p.Workers, "number of worker instances per cluster")
}

func (p eurekaParams) validate() error {
	switch {
	case p.Scale < 1 || p.Scale > 100:
		return Usagef("--time-scale (%g) must be within 1–100", p.Scale)
	case p.Workers < 0 || p.Workers > 200:
		return Usagef("--workers (%d) must be within 0–200", p.Workers)
	}
	if err := p.config().Validate(); err != nil {
		return Usagef("%v (--peer-timeout %s)", err, p.PeerTimeout)
	}
	return nil
}

// config returns the model config with the flags applied.
func (p eurekaParams) config() eureka.Config {
	c := eureka.DefaultConfig()
	c.LeaseBug, c.ResponseCache, c.PeerTimeout = p.LeaseBug, p.ResponseCache, p.PeerTimeout
	return c
}

// eurekaRig starts Eureka clusters and clients for one run; the processes
// belong to the run's supervisor, the in-process clients to the rig.
type eurekaRig struct {
	env     *Env
	scale   eureka.Scale
	alloc   *ports.Allocator
	dir     string
	clients []*eureka.Client
	workers []*eureka.Worker
}

// eurekaCluster is one set of peer servers with its workers.
type eurekaCluster struct {
	label   string
	cfg     eureka.Config
	servers []*eureka.ServerProc
	urls    []string
	workers []*eureka.Worker
	// link is the workers' path to the servers (a partition cuts it).
	link *eureka.Link
}

func newEurekaRig(env *Env, factor float64) (*eurekaRig, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, fmt.Errorf("starting supervisor: %w", err)
	}
	dir, err := sup.TempDir("sdchaos-eureka-*", env.Keep)
	if err != nil {
		return nil, err
	}
	if env.Keep {
		env.Printf("keeping eureka server logs in %s", dir)
	}
	return &eurekaRig{env: env, scale: eureka.NewScale(time.Now(), factor), alloc: ports.New(env.PortBase, "--port-base"), dir: dir}, nil
}

// startEurekaRun starts a rig and one cluster of eu's model with eu.Workers
// workers, and lets registration and replication settle for 2 s of model
// time. The caller closes the rig.
func startEurekaRun(ctx context.Context, env *Env, eu eurekaParams) (*eurekaRig, *eurekaCluster, error) {
	rig, err := newEurekaRig(env, eu.Scale)
	if err != nil {
		return nil, nil, err
	}
	cl, err := rig.startCluster(ctx, "", eu.config(), eu.Workers)
	if err == nil {
		err = rig.settle(ctx, 2*time.Second)
	}
	if err != nil {
		rig.close()
		return nil, nil, err
	}
	return rig, cl, nil
}

// close stops every in-process client and worker (the server processes are
// stopped by the supervisor).
func (r *eurekaRig) close() {
	for _, w := range r.workers {
		w.Crash()
	}
	for _, c := range r.clients {
		c.Stop()
	}
}

// startCluster starts 3 servers and n workers, each worker with its own
// (seeded) order of the servers and random heartbeat phase.
func (r *eurekaRig) startCluster(ctx context.Context, label string, cfg eureka.Config, n int) (*eurekaCluster, error) {
	sup, err := r.env.Supervisor()
	if err != nil {
		return nil, err
	}
	c := &eurekaCluster{label: label, cfg: cfg, link: &eureka.Link{}}
	start := time.Now()
	c.servers, err = eureka.StartCluster(ctx, sup, r.alloc, eureka.ClusterSpec{Label: label, Size: 3, Config: cfg,
		Scale: r.scale, Seed: r.env.Rand.Uint64(), LogDir: r.dir})
	if err != nil {
		return nil, fmt.Errorf("starting eureka servers %s: %w", label, err)
	}
	for _, s := range c.servers {
		c.urls = append(c.urls, s.URL)
	}
	for i := range n {
		if err := r.startWorker(ctx, c, fmt.Sprintf("w%02d", i+1)); err != nil {
			return nil, err
		}
	}
	r.env.Printf("eureka %s: 3 servers and %d workers up in %.2f s", orDefault(label, "cluster"), n, time.Since(start).Seconds())
	return c, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (r *eurekaRig) startWorker(ctx context.Context, c *eurekaCluster, id string) error {
	port, err := r.alloc.Take("eureka worker " + c.label + " " + id)
	if err != nil {
		return err
	}
	cc := r.clientConfig(c, r.shuffled(c.urls), false)
	cc.Instance = eureka.Instance{App: "WORKER", ID: id}
	cc.Link = c.link
	w, err := eureka.StartWorker(ctx, port, cc)
	if err != nil {
		return fmt.Errorf("starting %s: %w", id, err)
	}
	r.workers = append(r.workers, w)
	c.workers = append(c.workers, w)
	return nil
}

// clientConfig returns a client of c with the given server order and
// seeded phases for its first heartbeat and periodic fetch.
func (r *eurekaRig) clientConfig(c *eurekaCluster, order []string, fetch bool) eureka.ClientConfig {
	cfg := c.cfg
	return eureka.ClientConfig{Servers: order, Config: cfg, Scale: r.scale, Fetch: fetch,
		HeartbeatPhase: time.Duration(r.env.Rand.Int64N(int64(cfg.RenewInterval))),
		FetchPhase:     time.Duration(r.env.Rand.Int64N(int64(cfg.FetchInterval)))}
}

// scheduler starts a fetch-only client of c (a scheduler's discovery
// client) fetching every fetchEvery, with the given server order.
func (r *eurekaRig) scheduler(ctx context.Context, c *eurekaCluster, order []string, fetchEvery time.Duration) (*eureka.Client, error) {
	cc := r.clientConfig(c, order, true)
	cc.Config.FetchInterval = fetchEvery
	cc.FetchPhase = time.Duration(r.env.Rand.Int64N(int64(fetchEvery)))
	cl := eureka.NewClient(cc)
	if err := cl.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting a scheduler: %w", err)
	}
	r.clients = append(r.clients, cl)
	return cl, nil
}

// shuffled returns urls in a seeded random order (the source shuffles the
// service URLs once per client).
func (r *eurekaRig) shuffled(urls []string) []string {
	out := append([]string(nil), urls...)
	r.env.Rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// settle waits d of model time (replication and first renewals).
func (r *eurekaRig) settle(ctx context.Context, d time.Duration) error {
	return clock.SleepUntil(ctx, time.Now().Add(r.scale.Real(d)))
}

// histories reads every server's history (a killed server is skipped).
func histories(servers []*eureka.ServerProc) (map[string]eureka.History, error) {
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

// modelClock converts between the recorder's real offsets and model time
// relative to the recorder's time zero.
type modelClock struct {
	factor float64
	// t0 is the model time (since model zero) of the recorder's time zero.
	t0 time.Duration
}

func newModelClock(scale eureka.Scale, rec *report.Recorder) modelClock {
	return modelClock{factor: scale.Factor, t0: scale.At(rec.T0())}
}

// ofReal converts a real offset from the recorder's zero to model time.
func (m modelClock) ofReal(d time.Duration) time.Duration {
	return time.Duration(float64(d) * m.factor)
}

// ofModel converts a model time since model zero to model time since the
// recorder's zero.
func (m modelClock) ofModel(at time.Duration) time.Duration { return at - m.t0 }

// real converts a model duration to real time.
func (m modelClock) real(d time.Duration) time.Duration { return time.Duration(float64(d) / m.factor) }

// wallNote says how long a model span takes in real time.
func wallNote(factor float64, model time.Duration) string {
	return fmt.Sprintf("model time runs ×%g: %s of model time took %.1f s of real time", factor, fmtModel(model),
		model.Seconds()/factor)
}

// fmtModel prints a model duration compactly: 20m, 1m0.5s, 45s, 500ms
// (whole seconds from 10 minutes up, tenths from one minute, ms below).
func fmtModel(d time.Duration) string {
	switch {
	case d >= 10*time.Minute:
		d = d.Round(time.Second)
	case d >= time.Minute:
		d = d.Round(100 * time.Millisecond)
	default:
		d = d.Round(time.Millisecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}

// binomialBand returns p ± (4σ + slack) for n trials, clamped to [0, 1].
func binomialBand(p float64, n int, slack float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	sigma := math.Sqrt(p * (1 - p) / float64(n))
	return math.Max(0, p-4*sigma-slack), math.Min(1, p+4*sigma+slack)
}
