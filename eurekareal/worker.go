package eurekareal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"sdchaos/ports"
)

// WorkerSpec describes a worker: a Go HTTP instance that registers with
// real Eureka servers over the REST API and renews its lease.
type WorkerSpec struct {
	// App and ID name the instance ("WORKER", "w01").
	App, ID string
	// Port is where it listens on 127.0.0.1.
	Port int
	// Servers are the service URLs in this worker's order.
	Servers []string
	// Props gives the lease (RenewInterval, LeaseDuration: whole seconds)
	// and the request timeouts (ConnectTimeout, ReadTimeout).
	Props Props
	// HeartbeatPhase delays the first heartbeat (so workers started together
	// do not renew in lockstep).
	HeartbeatPhase time.Duration
}

// Beat is one heartbeat: when it ended, the server that answered (or the
// last one tried), its status, whether a 404 made the worker register again.
type Beat struct {
	At           time.Time
	Server       string
	Status       int
	Reregistered bool
	Err          string
}

// Worker is a running worker. Its requests go to one server at a time: it
// sticks to the last server that answered and moves to the next one in its
// list when a request fails (at most 3 tries per request, as
// RetryableEurekaHttpClient; simplified: no quarantine). A 404 to a
// heartbeat makes it register again on the same server, as DiscoveryClient.
type Worker struct {
	ID, Addr string
	spec     WorkerSpec
	in       Instance
	r        rest
	srv      *http.Server
	stop     context.CancelFunc
	done     chan struct{}
	once     sync.Once

	mu     sync.Mutex
	sticky int
	beats  []Beat
}

// StartWorker listens, registers (failing if no server accepts) and starts
// renewing every RenewInterval.
func StartWorker(ctx context.Context, spec WorkerSpec) (*Worker, error) {
	renew, dur, err := spec.Props.LeaseSeconds()
	if err != nil {
		return nil, fmt.Errorf("worker %s: %w", spec.ID, err)
	}
	ln, err := net.Listen("tcp", ports.Addr(spec.Port))
	if err != nil {
		return nil, fmt.Errorf("worker %s: listening: %w", spec.ID, err)
	}
	w := &Worker{ID: spec.ID, Addr: ln.Addr().String(), spec: spec, done: make(chan struct{}),
		in: Instance{App: spec.App, ID: spec.ID, Host: ports.Host, Port: spec.Port, RenewSecs: renew, DurationSecs: dur,
			DirtyMS: time.Now().UnixMilli()},
		r: rest{workerHTTP(spec.Props)}}
	w.srv = &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(rw, "ok %s\n", w.ID)
	})}
	go func() { _ = w.srv.Serve(ln) }()
	if err := w.Register(ctx); err != nil {
		w.srv.Close()
		return nil, fmt.Errorf("worker %s: %w", spec.ID, err)
	}
	lctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	go w.loop(lctx)
	return w, nil
}

func workerHTTP(p Props) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Timeout: p.ConnectTimeout}).DialContext,
		ResponseHeaderTimeout: p.ReadTimeout, MaxIdleConnsPerHost: 2}}
}

// Register registers the instance on its current server (moving on when it fails).
func (w *Worker) Register(ctx context.Context) error {
	_, _, err := w.try(ctx, func(s string) (int, error) { return w.r.register(ctx, s, w.in) }, http.StatusNoContent)
	return err
}

// Cancel deletes the lease (a graceful shutdown's DELETE), then stops the worker.
func (w *Worker) Cancel(ctx context.Context) error {
	w.Crash()
	_, _, err := w.try(ctx, func(s string) (int, error) { return w.r.cancel(ctx, s, w.in.App, w.in.ID) }, http.StatusOK, http.StatusNotFound)
	return err
}

// Crash stops renewing and closes the listener without cancelling the
// lease, as a killed process would. Safe to call twice.
func (w *Worker) Crash() {
	w.once.Do(func() {
		if w.stop != nil {
			w.stop()
			<-w.done
		}
		w.srv.Close()
	})
}

// Beats returns every heartbeat so far.
func (w *Worker) Beats() []Beat {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Beat(nil), w.beats...)
}

// loop renews after the phase, then every RenewInterval after each ends.
func (w *Worker) loop(ctx context.Context) {
	defer close(w.done)
	for wait := w.spec.HeartbeatPhase; sleepCtx(ctx, wait) == nil; wait = w.spec.Props.RenewInterval {
		w.heartbeat(ctx)
	}
}

func (w *Worker) heartbeat(ctx context.Context) {
	server, status, err := w.try(ctx, func(s string) (int, error) { return w.r.renew(ctx, s, w.in) }, http.StatusOK, http.StatusNotFound)
	b := Beat{Server: server, Status: status}
	if err == nil && status == http.StatusNotFound {
		b.Reregistered = true
		st, rerr := w.r.register(ctx, server, w.in)
		err = expect("re-registering", st, rerr, http.StatusNoContent)
	}
	if err != nil {
		b.Err = err.Error()
	}
	b.At = time.Now()
	w.mu.Lock()
	w.beats = append(w.beats, b)
	w.mu.Unlock()
}

// errNoServer is returned (wrapped) when no try of a request was answered.
var errNoServer = errors.New("no eureka server answered")

// try sends a request to the sticky server, moving to the next server of
// the list on each failure, at most 3 tries; a status in ok is an answer.
func (w *Worker) try(ctx context.Context, do func(server string) (int, error), ok ...int) (string, int, error) {
	var last error
	var server string
	for range min(3, len(w.spec.Servers)) {
		w.mu.Lock()
		server = w.spec.Servers[w.sticky]
		w.mu.Unlock()
		st, err := do(server)
		if err = expect(server, st, err, ok...); err == nil {
			return server, st, nil
		}
		last = err
		w.mu.Lock()
		w.sticky = (w.sticky + 1) % len(w.spec.Servers)
		w.mu.Unlock()
		if ctx.Err() != nil {
			break
		}
	}
	return server, 0, fmt.Errorf("%w: %v", errNoServer, last)
}
