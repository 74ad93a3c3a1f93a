package eurekamodel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"sdchaos/ports"
)

// Worker is a service instance: a real HTTP server on 127.0.0.1 that answers
// every request with 200, registered through its own Eureka client (which
// renews but does not fetch: a pure provider).
type Worker struct {
	id, Addr string
	Client   *Client
	srv      *http.Server
	once     sync.Once
}

// StartWorker listens on port, then registers cfg.Instance (its Addr is set
// to the listen address) and starts renewing.
func StartWorker(ctx context.Context, port int, cfg ClientConfig) (*Worker, error) {
	ln, err := net.Listen("tcp", ports.Addr(port))
	if err != nil {
		return nil, fmt.Errorf("worker %s: listening: %w", cfg.Instance.ID, err)
	}
	w := &Worker{id: cfg.Instance.ID, Addr: ln.Addr().String()}
	w.srv = &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(rw, "ok %s\n", w.id)
	})}
	go func() {
		if err := w.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ln.Close()
		}
	}()
	cfg.Instance.Addr = w.Addr
	w.Client = NewClient(cfg)
	if err := w.Client.Start(ctx); err != nil {
		w.srv.Close()
		return nil, fmt.Errorf("worker %s: %w", w.id, err)
	}
	return w, nil
}

// ID returns the worker's instance id ("w01").
func (w *Worker) ID() string { return w.id }

// Crash makes the worker die at once: its port refuses connections and its
// client stops renewing, without cancelling the lease. Safe to call twice.
func (w *Worker) Crash() {
	w.once.Do(func() {
		w.srv.Close()
		w.Client.Stop()
	})
}
