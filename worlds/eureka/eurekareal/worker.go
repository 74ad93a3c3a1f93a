package eurekareal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"sdchaos/clock"
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
	// OnRegister, when set, is told of every registration the worker
	// makes (the first, and each after a heartbeat answered 404): when it
	// started and ended, and its error.
	OnRegister func(id string, start, end time.Time, err error)
	// HeartbeatPhase delays the first heartbeat (so workers started together
	// do not renew in lockstep).
	HeartbeatPhase time.Duration
	// Link, when set, is the partition switch of the worker's group: while
	// it is blocked every request hangs until ConnectTimeout and fails as a
	// timeout, as with packets dropped by a firewall (the model's
	// eureka.Link semantics; the servers never see the request).
	Link Switch
}

// Switch is a partition switch on a group of workers' path to the servers.
type Switch interface {
	Blocked() bool
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
		r: rest{workerHTTP(spec.Props, spec.Link)}}
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

func workerHTTP(p Props, link Switch) *http.Client {
	var t http.RoundTripper = &http.Transport{DialContext: (&net.Dialer{Timeout: p.ConnectTimeout}).DialContext,
		ResponseHeaderTimeout: p.ReadTimeout, MaxIdleConnsPerHost: 2}
	if link != nil {
		t = cutTransport{base: t, link: link, connect: p.ConnectTimeout}
	}
	return &http.Client{Transport: t}
}

// cutTransport sends requests through base unless the link is cut; on a
// cut link a request waits out the connect timeout and fails as one.
type cutTransport struct {
	base    http.RoundTripper
	link    Switch
	connect time.Duration
}

func (t cutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.link.Blocked() {
		return t.base.RoundTrip(req)
	}
	timer := time.NewTimer(t.connect)
	defer timer.Stop()
	select {
	case <-req.Context().Done():
		return nil, req.Context().Err()
	case <-timer.C:
		return nil, errCut
	}
}

// errCut is the error of a request on a cut link: a connect timeout.
var errCut = cutError{}

type cutError struct{}

func (cutError) Error() string { return "dial tcp: i/o timeout (packets dropped by the partition)" }
func (cutError) Timeout() bool { return true }

// Register registers the instance on its current server (moving on when it fails).
func (w *Worker) Register(ctx context.Context) error {
	start := time.Now()
	_, _, err := w.try(ctx, func(s string) (int, error) { return w.r.register(ctx, s, w.in) }, http.StatusNoContent)
	w.registered(start, err)
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
	for wait := w.spec.HeartbeatPhase; clock.SleepFor(ctx, wait) == nil; wait = w.spec.Props.RenewInterval {
		w.heartbeat(ctx)
	}
}

func (w *Worker) heartbeat(ctx context.Context) {
	server, status, err := w.try(ctx, func(s string) (int, error) { return w.r.renew(ctx, s, w.in) }, http.StatusOK, http.StatusNotFound)
	b := Beat{Server: server, Status: status}
	if err == nil && status == http.StatusNotFound {
		b.Reregistered = true
		start := time.Now()
		st, rerr := w.r.register(ctx, server, w.in)
		err = expect("re-registering", st, rerr, http.StatusNoContent)
		w.registered(start, err)
	}
	if err != nil {
		b.Err = err.Error()
	}
	b.At = time.Now()
	w.mu.Lock()
	w.beats = append(w.beats, b)
	w.mu.Unlock()
}

// registered tells OnRegister of a registration that started at start.
func (w *Worker) registered(start time.Time, err error) {
	if w.spec.OnRegister != nil {
		w.spec.OnRegister(w.ID, start, time.Now(), err)
	}
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

// Registrar registers one instance once (no listener, no heartbeat): a
// registration whose spread the replication-lag experiment follows.
type Registrar struct {
	in      Instance
	servers []string
	r       rest
}

// NewRegistrar returns a registrar of app/id at addr (host:port) on the
// first of servers that answers.
func NewRegistrar(app, id, addr string, servers []string, p Props) (*Registrar, error) {
	renew, dur, err := p.LeaseSeconds()
	if err != nil {
		return nil, fmt.Errorf("registrar %s: %w", id, err)
	}
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("registrar %s: address %q: %w", id, addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("registrar %s: port %q: %w", id, portText, err)
	}
	return &Registrar{servers: servers, r: rest{workerHTTP(p, nil)},
		in: Instance{App: app, ID: id, Host: host, Port: port, RenewSecs: renew, DurationSecs: dur, DirtyMS: time.Now().UnixMilli()}}, nil
}

// Register registers the instance on the first server that accepts it.
func (g *Registrar) Register(ctx context.Context) error {
	var last error
	for _, s := range g.servers {
		st, err := g.r.register(ctx, s, g.in)
		if last = expect(s, st, err, http.StatusNoContent); last == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: %v", errNoServer, last)
}
