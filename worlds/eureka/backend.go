package eureka

import (
	"context"
	"time"

	"sdchaos/caller"
	"sdchaos/worlds/eureka/eurekamodel"
)

// EurekaBackend runs the servers, workers and schedulers of the Eureka
// world: the Go model (ModelBackend) or real Netflix Eureka servers with
// the real Java client. The plans and judges are the same for both.
type EurekaBackend interface {
	// Name is the back-end's --eureka value ("model", "real").
	Name() string
	// StartServers starts 3 peer servers labelled label with cfg (their
	// processes belong to the run's supervisor) and waits until they serve.
	StartServers(ctx context.Context, r *Eureka, label string, cfg eurekamodel.Config) ([]EurekaServer, error)
	// StartWorker starts one worker of c that registers as id and renews
	// through c.Link, in the given server order.
	StartWorker(ctx context.Context, r *Eureka, c *EurekaCluster, id string, order []string) (EurekaWorker, error)
	// StartScheduler starts a scheduler of c: a fetch-only discovery client
	// and, with a rate, its task loop.
	StartScheduler(ctx context.Context, r *Eureka, c *EurekaCluster, spec SchedulerSpec) (EurekaScheduler, error)
	// NewRegistrar returns a client of c that registers in once, on the
	// first server of order it reaches, and never renews.
	NewRegistrar(r *Eureka, c *EurekaCluster, in eurekamodel.Instance, order []string) (Registrar, error)
}

// Registrar registers one instance once.
type Registrar interface {
	Register(ctx context.Context) error
}

// EurekaServer is one server of the world as plans, faults and judges see it.
type EurekaServer interface {
	ServerTarget
	// URL is the server's base URL (http://127.0.0.1:PORT).
	URL() string
	// Alive reports whether the server's process still runs.
	Alive() bool
	// Stats is the server's current state (size, renewals, threshold, next
	// eviction run).
	Stats() (eurekamodel.ControlStats, error)
	// History is what the server recorded (model time since model zero).
	History() (eurekamodel.History, error)
}

// EurekaWorker is a worker instance: it registers, renews and answers tasks.
type EurekaWorker interface {
	WorkerTarget
	// Addr is where it answers tasks (host:port).
	Address() string
}

// EurekaScheduler is a scheduler: a fetch-only discovery client and its
// task loop. Run dispatches its tasks (ops named after it) for d; one of
// rate 0 only fetches and returns at once.
type EurekaScheduler interface {
	caller.Traffic
	// Name labels its tasks.
	Name() string
	// Fetches are its registry fetches so far (model time since model zero).
	Fetches() []eurekamodel.FetchEvent
	// QueryServer is the server URL its fetches stick to now.
	QueryServer() string
}

// SchedulerSpec describes a scheduler.
type SchedulerSpec struct {
	// Name labels its tasks and fetches ("fetch 15s", "R=3").
	Name string
	// Order are the server URLs in its order (the source shuffles them once).
	Order []string
	// Fetch is its registry fetch interval (model time).
	Fetch time.Duration
	// Rate is its tasks per second (real time); 0 makes a fetch-only client.
	Rate float64
	// Retries is how many other workers a failed task is retried on.
	Retries int
	// App is the application whose instances the client lists ("WORKER"
	// when empty; the model's clients list every application).
	App string
	// Holding, when positive, makes a real client's start wait, before its
	// seeded fetch phase, until its cache holds that many instances of App:
	// a server answers a full fetch from its read-only response cache,
	// refreshed every response-cache-update-interval (ResponseCacheImpl's
	// cache update task), so a client started right after the
	// registrations may first store a list up to that old.
	Holding int
}
