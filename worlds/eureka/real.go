package eureka

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/linkproxy"
	"sdchaos/ports"
	"sdchaos/worlds/eureka/eurekamodel"
	"sdchaos/worlds/eureka/eurekareal"
)

// RealBackend runs real Netflix Eureka servers (Spring Cloud Netflix, built
// by Maven on first use) as JVM children, the real Java DiscoveryClient as
// each scheduler's discovery, and Go workers speaking Eureka's REST API
// (package eurekareal). Clients reach each server through a loopback proxy
// of its own (the latency fault delays it); the peers replicate directly.
type RealBackend struct {
	// ClockControl starts every server under libfaketime so that its wall
	// clock can be stepped (clock-skew).
	ClockControl bool
	// PeerLinks puts a loopback proxy on every peer path (server to
	// server, each direction its own), so that one server can be cut off
	// its peers while its clients still reach it.
	PeerLinks bool
	// ReadyTimeout bounds a server's start (and restart);
	// eurekareal.DefaultReadyTimeout when 0.
	ReadyTimeout time.Duration
	// OnRegister, when set, is told of every registration of a worker
	// (eurekareal.WorkerSpec.OnRegister).
	OnRegister func(id string, start, end time.Time, err error)
}

// Name returns "real".
func (RealBackend) Name() string { return "real" }

// RealProps returns the real servers' properties for cfg (model time) at
// scale: every duration divided by the time scale, network timeouts to the
// millisecond and at least eurekamodel.NetFloor of real time (as the model's: scheduling noise on a
// shared host must not pass for a timeout); an interval the server takes in
// whole seconds that the scale does not keep whole is an error naming its
// property.
func RealProps(cfg eurekamodel.Config, scale eurekamodel.Scale) (eurekareal.Props, error) {
	r := scale.Real
	p := eurekareal.DefaultProps()

	p.RenewInterval, p.LeaseDuration, p.FetchInterval = r(cfg.RenewInterval), r(cfg.LeaseDuration), r(cfg.FetchInterval)
	p.EvictionInterval, p.ThresholdUpdate, p.ExpectedRenewInterval = r(cfg.EvictionInterval), r(cfg.ThresholdUpdate), r(cfg.ExpectedRenewInterval)
	p.RenewalPercent, p.SelfPreservation, p.OpenCount = cfg.RenewalPercent, cfg.SelfPreservation, cfg.OpenCount
	p.ResponseCache, p.CacheUpdate, p.ReplicationExpiry = cfg.ResponseCache, r(cfg.CacheUpdate), r(cfg.ReplicationExpiry)
	net := func(d time.Duration) time.Duration { return scale.RealNet(d).Round(time.Millisecond) }
	p.PeerTimeout, p.ConnectTimeout, p.ReadTimeout = net(cfg.PeerTimeout), net(cfg.ConnectTimeout), net(cfg.ReadTimeout)
	p.WaitWhenSyncEmpty, p.QuarantineRefresh = r(p.WaitWhenSyncEmpty), cfg.QuarantineRefresh
	return p, p.Validate()
}

// StartServers starts 3 real servers, each behind a client proxy.
func (b RealBackend) StartServers(ctx context.Context, r *Eureka, label string, cfg eurekamodel.Config) ([]EurekaServer, error) {
	props, err := RealProps(cfg, r.Scale)
	if err != nil {
		return nil, fmt.Errorf("--time-scale %g: %w", r.Scale.Factor, err)
	}
	sup, err := r.env.Supervisor()
	if err != nil {
		return nil, err
	}
	spec := eurekareal.ClusterSpec{Label: label, Size: 3, Props: props, ClockControl: b.ClockControl, LogDir: r.dir, Logf: r.env.Printf,
		ReadyTimeout: b.ReadyTimeout}
	var links []peerLink
	if b.PeerLinks {
		spec.PeerURL = func(from, to *eurekareal.Server) (string, error) {
			l, err := newPeerLink(r, from.Name, to)
			if err != nil {
				return "", err
			}
			links = append(links, l)
			return l.url, nil
		}
	}
	ss, err := eurekareal.StartCluster(ctx, sup, r.alloc, spec)
	if err != nil {
		return nil, err
	}
	if err := describeServers(ctx, r, ss, label, cfg, props); err != nil {
		return nil, err
	}
	out := make([]EurekaServer, len(ss))
	for i, s := range ss {
		rs, err := newRealServer(r, s)
		if err != nil {
			return nil, err
		}
		rs.peers = links
		out[i] = rs
	}
	return out, nil
}

// describeServers records what a set of real servers ran (eurekareal.DescribeServers),
// the settings of the Go workers registered on them and the constants the bands assume.
func describeServers(ctx context.Context, r *Eureka, ss []*eurekareal.Server, label string, cfg eurekamodel.Config, props eurekareal.Props) error {
	of := "eureka servers"
	if label != "" {
		of += " (cluster " + label + ")"
	}
	w, err := eurekareal.DescribeServers(ctx, ss, of, r.env.Printf)
	if err != nil {
		return err
	}
	w.Settings = append(w.Settings, eurekareal.WorkerSettings(props, strings.Replace(of, "eureka servers", "Go workers", 1))...)
	w.Constants = realConstants(cfg)
	r.env.Describe(w)
	return nil
}

// realServer is a real Eureka server as the rig sees it: clients reach it
// through its proxy; times are converted to model time on the rig's scale.
type realServer struct {
	*eurekareal.Server
	proxy *linkproxy.Proxy
	scale eurekamodel.Scale
	// peers are the cluster's peer-path proxies (with RealBackend.PeerLinks).
	peers []peerLink
}

func newRealServer(r *Eureka, s *eurekareal.Server) (*realServer, error) {
	port, err := r.alloc.Take("client proxy to eureka " + s.Name)
	if err != nil {
		return nil, err
	}
	p, err := linkproxy.New(ports.Addr(port), strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		return nil, fmt.Errorf("starting the client proxy to %s: %w", s.Name, err)
	}
	r.Defer(func() { p.Close() })
	return &realServer{Server: s, proxy: p, scale: r.Scale}, nil
}

// Name returns the server's name.
func (s *realServer) Name() string { return s.Server.Name }

// URL returns the base URL clients use (its proxy).
func (s *realServer) URL() string { return "http://" + s.proxy.Addr() }

// Step steps the server's wall clock by d of model time (libfaketime).
func (s *realServer) Step(d time.Duration) error { return s.StepClock(s.scale.Real(d)) }

// Delay adds d of model time to every client request the server handles:
// half of it on each direction of its proxy.
func (s *realServer) Delay(d time.Duration) error {
	s.proxy.Delay(s.scale.Real(d) / 2)
	return nil
}

// Stats reads the server's state through its own registry's methods.
func (s *realServer) Stats() (eurekamodel.ControlStats, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := s.State(ctx)
	if err != nil {
		return eurekamodel.ControlStats{}, err
	}
	ev, err := s.Events(ctx)
	if err != nil {
		return eurekamodel.ControlStats{}, err
	}
	out := eurekamodel.ControlStats{Stats: eurekamodel.Stats{Now: s.scale.At(s.HostTime(st.MonoMS)), Size: st.Size,
		RenewsLastMin: st.RenewsLastMin, Threshold: st.Threshold, Expected: st.Expected, ExpirationEnabled: st.ExpirationEnabled,
		Skew: s.scale.Model(s.ClockOffset())}}
	if n := len(ev.Evictions); n > 0 {
		last := s.scale.At(s.HostTime(ev.Evictions[n-1].MonoMS))
		out.NextEviction = last + s.scale.Model(s.evictEvery(ev))
	}
	return out, nil
}

// evictEvery is the eviction task's period, from its last two runs.
func (s *realServer) evictEvery(ev eurekareal.Events) time.Duration {
	n := len(ev.Evictions)
	if n < 2 {
		return 0
	}
	return time.Duration(ev.Evictions[n-1].MonoMS-ev.Evictions[n-2].MonoMS) * time.Millisecond
}

// History converts what the server recorded into the model's history
// (model time since model zero, on the host's monotonic clock).
func (s *realServer) History() (eurekamodel.History, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := s.Events(ctx)
	if err != nil {
		return eurekamodel.History{}, err
	}
	at := func(mono int64) time.Duration { return s.scale.At(s.HostTime(mono)) }
	h := eurekamodel.History{Server: s.Server.Name}
	for _, e := range ev.Events {
		if e.Kind == "open" {
			h.Start = at(e.MonoMS)
			continue
		}
		h.Events = append(h.Events, eurekamodel.Event{At: at(e.MonoMS), Kind: e.Kind, ID: e.ID, Replicated: e.Replicated, New: e.New})
	}
	for _, r := range ev.Evictions {
		h.Evictions = append(h.Evictions, eurekamodel.EvictionRun{At: at(r.MonoMS), Skew: s.scale.Model(time.Duration(r.WallMS-r.MonoMS-s.MonoOffset) * time.Millisecond),
			RenewsLastMin: r.RenewsLastMin, Threshold: r.Threshold, Expected: r.Expected, Enabled: r.Enabled, Size: r.Size,
			Expired: r.Expired, Limit: r.Limit, Evicted: r.Evicted, Compensation: s.scale.Model(time.Duration(r.CompensationMS) * time.Millisecond)})
	}
	for _, t := range ev.Thresholds {
		h.Thresholds = append(h.Thresholds, eurekamodel.ThresholdRun{At: at(t.MonoMS), Count: t.Count, Adopted: t.Adopted, Expected: t.Expected, Threshold: t.Threshold})
	}
	return h, nil
}

// serviceURL is a base URL's Eureka service URL (what real clients take).
func serviceURL(base string) string { return strings.TrimSuffix(base, "/") + "/eureka/" }

// baseURL is a service URL's base URL.
func baseURL(service string) string {
	return strings.TrimSuffix(strings.TrimSuffix(service, "/"), "/eureka")
}

func serviceURLs(bases []string) []string {
	out := make([]string, len(bases))
	for i, b := range bases {
		out[i] = serviceURL(b)
	}
	return out
}

// StartWorker starts a Go worker speaking Eureka's REST API through c.Link.
func (b RealBackend) StartWorker(ctx context.Context, r *Eureka, c *EurekaCluster, id string, order []string) (EurekaWorker, error) {
	props, err := RealProps(c.Cfg, r.Scale)
	if err != nil {
		return nil, err
	}
	port, err := r.alloc.Take("eureka worker " + c.Label + " " + id)
	if err != nil {
		return nil, err
	}
	phase := time.Duration(r.env.Rand.Int64N(int64(props.RenewInterval)))
	w, err := eurekareal.StartWorker(ctx, eurekareal.WorkerSpec{App: "WORKER", ID: id, Port: port, Servers: serviceURLs(order),
		Props: props, HeartbeatPhase: phase, Link: c.Link, OnRegister: b.OnRegister})
	if err != nil {
		return nil, err
	}
	r.Defer(w.Crash)
	return realWorker{w}, nil
}

// realWorker is a Go REST worker as the rig sees it.
type realWorker struct{ *eurekareal.Worker }

// ID returns the worker's instance id.
func (w realWorker) ID() string { return w.Worker.ID }

// Address returns where the worker answers tasks.
func (w realWorker) Address() string { return w.Addr }

// NewRegistrar returns a Go REST client that registers in once.
func (RealBackend) NewRegistrar(r *Eureka, c *EurekaCluster, in eurekamodel.Instance, order []string) (Registrar, error) {
	props, err := RealProps(c.Cfg, r.Scale)
	if err != nil {
		return nil, err
	}
	return eurekareal.NewRegistrar(in.App, in.ID, in.Addr, serviceURLs(order), props)
}

// StartScheduler starts Netflix's Java DiscoveryClient fetching from the
// servers in spec's order; with a rate, the harness's task loop dispatches
// over the instances the real client holds after each fetch.
func (RealBackend) StartScheduler(ctx context.Context, r *Eureka, c *EurekaCluster, spec SchedulerSpec) (EurekaScheduler, error) {
	props, err := RealProps(c.Cfg, r.Scale)
	if err != nil {
		return nil, err
	}
	props.FetchInterval = r.Scale.Real(spec.Fetch)
	sup, err := r.env.Supervisor()
	if err != nil {
		return nil, err
	}
	cl, err := eurekareal.StartClient(ctx, sup, eurekareal.ClientSpec{Name: schedulerLabel(spec.Name), Servers: serviceURLs(spec.Order),
		FetchInterval: props.FetchInterval, App: spec.App, Props: props, LogDir: r.dir, Logf: r.env.Printf})
	if err != nil {
		return nil, err
	}
	s := &realScheduler{name: spec.Name, scale: r.Scale, workers: c, query: spec.Order[0], first: make(chan struct{}), client: cl}
	r.Defer(cl.Kill)
	w, err := eurekareal.DescribeClient(ctx, cl, r.env.Printf)
	if err != nil {
		return nil, err
	}
	r.env.Describe(w)
	go s.read(cl)
	if err := s.waitFirstFetch(ctx, cl); err != nil {
		return nil, err
	}
	if err := s.waitHolding(ctx, r, spec.Holding, 2*props.FetchInterval+props.CacheUpdate); err != nil {
		return nil, err
	}
	if err := seedFetchPhase(ctx, r, props.FetchInterval); err != nil {
		return nil, err
	}
	if spec.Rate > 0 {
		s.tasks = caller.NewDispatcher(caller.DispatcherConfig{Name: spec.Name, Rate: spec.Rate, Retries: spec.Retries,
			Seed: r.env.Rand.Uint64(), Instances: s.instances})
	}
	return s, nil
}

// seedFetchPhase waits a seeded share of one fetch interval after a real
// client's first fetch. DiscoveryClient schedules its cache refresh with an
// initial delay of one interval from its start (initScheduledTasks), so its
// fetch ticks keep the phase of its start against the timeline; waiting a
// uniform [0, interval) after it moves that phase with --seed, as the
// model's FetchPhase does, so that --runs samples every phase the rule allows.
func seedFetchPhase(ctx context.Context, r *Eureka, interval time.Duration) error {
	if interval <= 0 {
		return nil
	}
	wait := time.Duration(r.env.Rand.Int64N(int64(interval)))
	r.env.Printf("the Java client's fetch phase: waiting %s (seeded) before the next step", wait.Round(time.Millisecond))
	return clock.SleepFor(ctx, wait)
}

// schedulerLabel makes a scheduler's name a file name ("fetch 15s" → "fetch-15s").
func schedulerLabel(name string) string {
	return "scheduler-" + strings.NewReplacer(" ", "-", "/", "-", "→", "to", "=", "").Replace(name)
}

// realScheduler is a real Java client and the harness's task loop over its cache.
type realScheduler struct {
	name    string
	scale   eurekamodel.Scale
	workers *EurekaCluster
	tasks   *caller.Dispatcher
	client  *eurekareal.Client

	mu      sync.Mutex
	fetches []eurekamodel.FetchEvent
	ids     []string
	query   string
	first   chan struct{}
	once    sync.Once
}

// Name returns the scheduler's name.
func (s *realScheduler) Name() string { return s.name }

// RSS returns the resident set size of its Java client in bytes.
func (s *realScheduler) RSS() (int64, error) { return s.client.RSS() }

// Run dispatches the tasks for d (none for a fetch-only client).
func (s *realScheduler) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	if s.tasks == nil {
		return nil
	}
	return s.tasks.Run(ctx, rec, d)
}

// Fetches returns the real client's fetches so far.
func (s *realScheduler) Fetches() []eurekamodel.FetchEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]eurekamodel.FetchEvent(nil), s.fetches...)
}

// QueryServer returns the base URL of the server whose answer the client
// stored last (its first server before any).
func (s *realScheduler) QueryServer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.query
}

// instances returns the workers the client holds, with their addresses.
func (s *realScheduler) instances() []caller.Endpoint {
	s.mu.Lock()
	ids := s.ids
	s.mu.Unlock()
	var out []caller.Endpoint
	for _, id := range ids {
		for _, w := range s.workers.Workers {
			if w.ID() == id {
				out = append(out, caller.Endpoint{ID: id, Addr: w.Address()})
			}
		}
	}
	return out
}

// read records every fetch line of the client until it exits.
func (s *realScheduler) read(cl *eurekareal.Client) {
	for l := range cl.Lines() {
		if l.Fetch == nil {
			continue
		}
		s.record(*l.Fetch)
	}
}

// record keeps one fetch: a stored answer replaces the cached list (a
// failed fetch keeps it, as the real client's cache does).
func (s *realScheduler) record(f eurekareal.FetchLine) {
	ev := eurekamodel.FetchEvent{At: s.scale.At(time.UnixMilli(f.AtMS)), OK: f.OK, IDs: f.IDs}
	for _, a := range f.Attempts {
		ev.Attempts = append(ev.Attempts, eurekamodel.Attempt{Server: baseURL(a.Server), Status: a.Status, Err: a.Err})
	}
	s.mu.Lock()
	s.fetches = append(s.fetches, ev)
	if f.OK {
		s.ids, s.query = f.IDs, baseURL(f.Server)
		s.once.Do(func() { close(s.first) })
	}
	s.mu.Unlock()
}

// firstFetchWait bounds the wait for a new client's first stored fetch
// (a JVM start and the full fetch).
const firstFetchWait = 2 * time.Minute

// waitFirstFetch waits until the client has stored its first registry, so
// the tasks start on a warm cache as the model's do.
func (s *realScheduler) waitFirstFetch(ctx context.Context, cl *eurekareal.Client) error {
	t := time.NewTimer(firstFetchWait)
	defer t.Stop()
	select {
	case <-s.first:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("the Java client %s stored no registry within %s (alive: %v; see %s)", s.name, firstFetchWait, cl.Alive(), cl.LogPath)
	}
}
