package zookeeper

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"sdchaos/ports"
)

// Instance is a real service instance: an HTTP server on 127.0.0.1 answering
// "ok <id>" to every request, registered by its own Registrant (its own
// session) in Curator's layout.
type Instance struct {
	// ID is the instance id; Addr its HTTP address.
	ID, Addr string
	reg      *Registrant
	srv      *http.Server
	crashed  atomic.Bool
}

// StartInstance listens on a port from alloc, serves, and registers the
// instance with cfg (whose Address and Port it fills in). The first
// registration must succeed.
func StartInstance(ctx context.Context, alloc *ports.Allocator, cfg RegistrantConfig) (*Instance, error) {
	port, err := alloc.Take("instance " + cfg.ID)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", cfg.ID, err)
	}
	ln, err := net.Listen("tcp", ports.Addr(port))
	if err != nil {
		return nil, fmt.Errorf("instance %s: listening: %w", cfg.ID, err)
	}
	in := &Instance{ID: cfg.ID, Addr: ln.Addr().String()}
	in.srv = &http.Server{Handler: http.HandlerFunc(in.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = in.srv.Serve(ln) }()
	cfg.Address, cfg.Port = ports.Host, port
	if in.reg, err = Register(ctx, cfg); err != nil {
		_ = in.srv.Close()
		return nil, fmt.Errorf("instance %s: %w", cfg.ID, err)
	}
	return in, nil
}

func (in *Instance) serve(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprintf(w, "ok %s\n", in.ID)
}

// Registrant returns the instance's registrant (its session and events).
func (in *Instance) Registrant() *Registrant { return in.reg }

// Crash makes the instance stop answering at once (connections refused) and
// cuts its session's link without closing the session: its node stays until
// the server expires the session.
func (in *Instance) Crash() {
	in.crashed.Store(true)
	_ = in.srv.Close()
	in.reg.Crash()
}

// Crashed reports whether Crash was called.
func (in *Instance) Crashed() bool { return in.crashed.Load() }

// Close stops serving and closes the session (the node goes at once unless
// the instance crashed).
func (in *Instance) Close() {
	_ = in.srv.Close()
	in.reg.Close()
}
