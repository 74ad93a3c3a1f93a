// Package fakeservice runs fake service instances: real HTTP servers on
// 127.0.0.1 that register themselves in etcd under /svc/<service>/<id> on a
// lease and renew it on their own ticker, as the article's instances did.
// An instance started with a gRPC port also serves the standard gRPC health
// service there and registers that address, on the same lease, in the
// format of etcd's naming endpoints manager (see GRPCPrefix), so a real
// gRPC client with etcd's naming resolver can discover it.
package fakeservice

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/etcdcli"
	"sdchaos/ports"
)

// Prefix is the root of every service key.
const Prefix = "/svc/"

// MinTTL is etcd's smallest lease TTL with the default election timeout
// (ceil(1.5 × 1s)); etcd silently raises shorter grants to it.
const MinTTL = 2 * time.Second

// Key returns the registry key of instance id of service.
func Key(service, id string) string { return Prefix + service + "/" + id }

// Config describes how instances register.
type Config struct {
	// Service is the service name (keys /svc/<Service>/<id>).
	Service string
	// TTL is the lease TTL; Renew the renewal interval (KeepAliveOnce on a ticker).
	TTL, Renew time.Duration
	// CallTimeout bounds every registry call (grant, put, renewal).
	CallTimeout time.Duration
	// GRPC makes every instance also serve gRPC health on its own port and
	// register it for etcd's naming resolver.
	GRPC bool
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// OnRegister, when set, is told about every registration (a grant and
	// a put) the instance makes, the first one included, and how it ended.
	OnRegister func(id string, start, end time.Time, err error)
	// Rejoin, when set, is how long an instance that found its lease gone
	// waits before it registers again (a seeded back-off's draw); it is
	// called once per re-registration.
	Rejoin func() time.Duration
	// Host is the loopback address the instance listens on (HTTP and
	// gRPC); "" is ports.Host, 127.0.0.1.
	Host string
}

// host is the address the instance listens on.
func (c Config) host() string { return cmp.Or(c.Host, ports.Host) }

// DefaultConfig returns the article's values: ttl 20s renewed every 2s.
func DefaultConfig() Config {
	return Config{Service: "api", TTL: 20 * time.Second, Renew: 2 * time.Second, CallTimeout: 2 * time.Second}
}

// Validate reports impossible values, quoting them.
func (c Config) Validate() error {
	switch {
	case c.Service == "":
		return errors.New("service name is empty")
	case c.TTL < MinTTL:
		return fmt.Errorf("ttl (%s) must be at least %s (etcd raises shorter lease TTLs to 1.5 × its 1s election timeout)", c.TTL, MinTTL)
	case c.TTL%time.Second != 0:
		return fmt.Errorf("ttl (%s) must be a whole number of seconds", c.TTL)
	case c.Renew <= 0:
		return fmt.Errorf("renew interval (%s) must be positive", c.Renew)
	case c.Renew >= c.TTL:
		return fmt.Errorf("renew interval (%s) must be shorter than the ttl (%s)", c.Renew, c.TTL)
	case c.CallTimeout <= 0:
		return fmt.Errorf("registry call timeout (%s) must be positive", c.CallTimeout)
	}
	return nil
}

// Stats counts an instance's registry activity.
type Stats struct {
	RenewOK, RenewFail, Registrations int64
}

// Instance is one fake service instance.
type Instance struct {
	ID, Addr string
	// GRPCAddr is the gRPC health server's address ("" without Config.GRPC).
	GRPCAddr string
	cfg      Config
	grpc     *grpcSide
	cli      *clientv3.Client
	reg      *Registrant
	srv      *http.Server
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	crashed  atomic.Bool

	renewOK, renewFail atomic.Int64
}

// Start listens on 127.0.0.1:port (cfg.Host:port), serves HTTP, registers in etcd through
// its own client on endpoints and starts renewing. The first registration
// must succeed.
func Start(ctx context.Context, cfg Config, id string, port int, endpoints []string) (*Instance, error) {
	return StartWithGRPC(ctx, cfg, id, port, 0, endpoints)
}

// StartWithGRPC is Start with the gRPC health server on grpcPort (used when
// cfg.GRPC is set; 0 otherwise).
func StartWithGRPC(ctx context.Context, cfg Config, id string, port, grpcPort int, endpoints []string) (*Instance, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.host(), strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("instance %s: listening: %w", id, err)
	}
	cli, err := etcdcli.New(endpoints...)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("instance %s: %w", id, err)
	}
	in := &Instance{ID: id, Addr: ln.Addr().String(), cfg: cfg, cli: cli, stop: make(chan struct{}), done: make(chan struct{})}
	in.reg = NewRegistrant(cli, Key(cfg.Service, id), in.Addr, cfg.TTL, cfg.CallTimeout, nil)
	in.srv = &http.Server{Handler: http.HandlerFunc(in.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = in.srv.Serve(ln) }()
	if cfg.GRPC {
		if in.grpc, err = startGRPC(cfg.host(), grpcPort); err != nil {
			in.Close()
			return nil, fmt.Errorf("instance %s: %w", id, err)
		}
		in.GRPCAddr = in.grpc.addr
	}
	if err := in.register(ctx); err != nil {
		in.Close()
		return nil, fmt.Errorf("instance %s: registering: %w", id, err)
	}
	go in.renewLoop()
	return in, nil
}

func (in *Instance) serve(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprintf(w, "ok %s\n", in.ID)
}

// Key returns the instance's registry key.
func (in *Instance) Key() string { return Key(in.cfg.Service, in.ID) }

// Lease returns the current lease id.
func (in *Instance) Lease() clientv3.LeaseID { return in.reg.Lease() }

// Stats returns the instance's counters.
func (in *Instance) Stats() Stats {
	return Stats{RenewOK: in.renewOK.Load(), RenewFail: in.renewFail.Load(), Registrations: in.reg.Registrations()}
}

// Client returns the instance's etcd client.
func (in *Instance) Client() *clientv3.Client { return in.cli }

// register grants a lease and puts the instance's key (and its gRPC
// endpoint) on it.
func (in *Instance) register(ctx context.Context) error {
	start := time.Now()
	err := in.reg.Register(ctx)
	if in.cfg.OnRegister != nil {
		in.cfg.OnRegister(in.ID, start, time.Now(), err)
	}
	if err != nil {
		return err
	}
	if in.grpc == nil {
		return nil
	}
	c, cancel := context.WithTimeout(ctx, in.cfg.CallTimeout)
	defer cancel()
	return addEndpoint(c, in.cli, in.cfg.Service, in.GRPCAddr, in.reg.Lease())
}

// RenewOnce sends one KeepAliveOnce for the current lease, bounded by the
// call timeout. When the lease is gone it registers again with a new lease.
func (in *Instance) RenewOnce(ctx context.Context) error {
	err := in.reg.Renew(ctx)
	if err == nil {
		in.renewOK.Add(1)
		return nil
	}
	in.renewFail.Add(1)
	if errors.Is(err, ErrLeaseGone) {
		in.cfg.Log.Info("lease gone; registering again", "instance", in.ID)
		if in.cfg.Rejoin != nil {
			if err := clock.SleepFor(ctx, in.cfg.Rejoin()); err != nil {
				return err
			}
		}
		return in.register(ctx)
	}
	return err
}

func (in *Instance) renewLoop() {
	defer close(in.done)
	t := time.NewTicker(in.cfg.Renew)
	defer t.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-in.stop; cancel() }()
	for {
		select {
		case <-in.stop:
			return
		case <-t.C:
			if err := in.RenewOnce(ctx); err != nil && ctx.Err() == nil {
				in.cfg.Log.Debug("renewal failed", "instance", in.ID, "err", err)
			}
		}
	}
}

// Crash makes the instance stop answering at once (connections refused,
// open ones closed) and stop renewing; its key stays until the lease expires.
func (in *Instance) Crash() {
	in.crashed.Store(true)
	in.stopRenewing()
	_ = in.srv.Close()
	in.grpc.stop()
}

// Crashed reports whether Crash was called.
func (in *Instance) Crashed() bool { return in.crashed.Load() }

func (in *Instance) stopRenewing() {
	in.stopOnce.Do(func() { close(in.stop) })
}

// Close stops serving and renewing and closes the etcd client. The lease is
// left to expire (the cluster is torn down with the run anyway).
func (in *Instance) Close() {
	in.stopRenewing()
	_ = in.srv.Close()
	in.grpc.stop()
	_ = in.cli.Close()
}
