package eureka

import (
	"context"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/history"
	"sdchaos/worlds/eureka/eurekamodel"
)

// ModelBackend runs the Go model of Eureka (package eureka): each server
// its own process, in-process workers and schedulers.
type ModelBackend struct{}

// Name returns "model".
func (ModelBackend) Name() string { return "model" }

// StartServers starts 3 model servers.
func (ModelBackend) StartServers(ctx context.Context, r *Eureka, label string, cfg eurekamodel.Config) ([]EurekaServer, error) {
	sup, err := r.env.Supervisor()
	if err != nil {
		return nil, err
	}
	procs, err := eurekamodel.StartCluster(ctx, sup, r.alloc, eurekamodel.ClusterSpec{Label: label, Size: 3, Config: cfg,
		Scale: r.Scale, Seed: r.env.Rand.Uint64(), LogDir: r.dir})
	if err != nil {
		return nil, err
	}
	r.env.Describe(modelEureka())
	out := make([]EurekaServer, len(procs))
	for i, p := range procs {
		out[i] = p
	}
	return out, nil
}

// StartWorker starts a model worker (an HTTP server registered through
// its own model client).
func (ModelBackend) StartWorker(ctx context.Context, r *Eureka, c *EurekaCluster, id string, order []string) (EurekaWorker, error) {
	port, err := r.alloc.Take("eureka worker " + c.Label + " " + id)
	if err != nil {
		return nil, err
	}
	cc := r.ClientConfig(c, order, false)
	cc.Instance = eurekamodel.Instance{App: "WORKER", ID: id}
	cc.Link = c.Link
	w, err := eurekamodel.StartWorker(ctx, port, cc)
	if err != nil {
		return nil, err
	}
	r.Defer(w.Crash)
	return modelWorker{w}, nil
}

// modelWorker is a model worker as the rig sees it.
type modelWorker struct{ *eurekamodel.Worker }

// Address returns where the worker answers tasks.
func (w modelWorker) Address() string { return w.Addr }

// StartScheduler starts a model client fetching every spec.Fetch and, with
// a rate, a task loop over its cached registry.
func (ModelBackend) StartScheduler(ctx context.Context, r *Eureka, c *EurekaCluster, spec SchedulerSpec) (EurekaScheduler, error) {
	cc := r.ClientConfig(c, spec.Order, true)
	cc.Config.FetchInterval = spec.Fetch
	cc.FetchPhase = time.Duration(r.env.Rand.Int64N(int64(spec.Fetch)))
	cl := eurekamodel.NewClient(cc)
	if err := cl.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting its discovery client: %w", err)
	}
	r.Defer(cl.Stop)
	s := &modelScheduler{name: spec.Name, Client: cl}
	if spec.Rate > 0 {
		s.tasks = caller.NewDispatcher(caller.DispatcherConfig{Name: spec.Name, Rate: spec.Rate, Retries: spec.Retries,
			Seed: r.env.Rand.Uint64(), Instances: func() []caller.Endpoint { return endpoints(cl.Instances()) }})
	}
	return s, nil
}

// modelScheduler is a model client and its task loop.
type modelScheduler struct {
	name string
	*eurekamodel.Client
	tasks *caller.Dispatcher
}

// Name returns the scheduler's name.
func (s *modelScheduler) Name() string { return s.name }

// Run dispatches the tasks for d (none for a fetch-only client).
func (s *modelScheduler) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	if s.tasks == nil {
		return nil
	}
	return s.tasks.Run(ctx, rec, d)
}

// endpoints turns a cached registry into the dispatcher's endpoints.
func endpoints(insts []eurekamodel.Instance) []caller.Endpoint {
	out := make([]caller.Endpoint, len(insts))
	for i, in := range insts {
		out[i] = caller.Endpoint{ID: in.ID, Addr: in.Addr}
	}
	return out
}

// NewRegistrar returns a model client of c for in (no heartbeat, no fetch).
func (ModelBackend) NewRegistrar(r *Eureka, c *EurekaCluster, in eurekamodel.Instance, order []string) (Registrar, error) {
	cc := r.ClientConfig(c, order, false)
	cc.Instance = in
	return eurekamodel.NewClient(cc), nil
}
