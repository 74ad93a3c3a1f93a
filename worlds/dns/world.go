package dns

import (
	"context"
	"fmt"
	"net/netip"
	"path"
	"sync"

	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/fakeservice"
	"sdchaos/ports"
	"sdchaos/rig"
)

// Options are the DNS world's own settings: its instances, the cache of
// the server the stale client asks, and whether gRPC resolves through a
// node-local caching layer.
type Options struct {
	// Instances is how many instances register (j1…jn); Service their
	// registration (lease ttl, renewal).
	Instances int
	Service   fakeservice.Config
	// Stale is the cache in front of the "stale" server (serve_stale
	// immediate when its ServeStale is nil: DefaultOptions).
	Stale Cache
	// NodeLocal puts a node-local layer (cache with serve_stale immediate,
	// forwarding to the server without a cache) between gRPC's dns
	// resolver and the registry, as Kubernetes' NodeLocal DNSCache does.
	NodeLocal bool
}

// DefaultOptions are the registered world's settings for x: x's instances
// on fakeservice's default lease (20 s, renewed every 2 s) or x's ttl
// renewed every tenth of it; serve_stale immediate at its defaults; no
// node-local layer.
func DefaultOptions(x experiment.Experiment) Options {
	svc := fakeservice.DefaultConfig()
	if x.Instances.TTL > 0 {
		svc.TTL = x.Instances.TTL.D()
		svc.Renew = svc.TTL / 10
	}
	return Options{Instances: x.Instances.Count, Service: svc, Stale: Cache{ServeStale: &ServeStale{Mode: StaleImmediate}}}
}

// World is the DNS world behind the seam (a rig.World): a real 3-member
// etcd, CoreDNS over it (a server without a cache, one with the cache and
// serve_stale, optionally a node-local layer), instances with SkyDNS
// records on their leases, and the clients — policy callers refreshing
// through DNS, Go's resolver, gRPC's dns resolver — each reaching its
// server through a Relay the registry-unreachable fault holds.
type World struct {
	env  *rig.Env
	x    experiment.Experiment
	opts Options
	sink *rig.Sink

	alloc *ports.Allocator
	dir   string
	// Etcd is the cluster behind CoreDNS; Insts the instances.
	Etcd  *cluster.Cluster
	Insts *Instances
	// Plain, Stale and Local are the servers (Local nil without the
	// node-local layer); relays maps a server's name to the clients' path.
	Plain, Stale, Local *Server
	relays              map[string]*Relay

	mu      sync.Mutex
	closers []func()
	once    sync.Once
}

// The servers' names.
const (
	plainName = "plain"
	staleName = "stale"
	localName = "local"
)

// NewWorld returns the world that runs x with o (Start starts it).
func NewWorld(env *rig.Env, x experiment.Experiment, o Options) *World {
	return &World{env: env, x: x, opts: o, sink: &rig.Sink{}, relays: map[string]*Relay{}}
}

// Host is the service's DNS name.
func (w *World) Host() string { return ServiceName(w.opts.Service.Service, DefaultZone) }

// recordPrefix is the etcd prefix of the instances' records.
func (w *World) recordPrefix() string {
	return path.Dir(RecordKey(DefaultPath, DefaultZone, w.opts.Service.Service, "j")) + "/"
}

// onClose makes Close call f (last added first).
func (w *World) onClose(f func()) {
	w.mu.Lock()
	w.closers = append(w.closers, f)
	w.mu.Unlock()
}

// Start starts etcd, the instances and their records, the CoreDNS servers
// and the clients' relays.
func (w *World) Start(ctx context.Context) error {
	w.env.AddCloser(w.Close)
	sup, err := w.env.Supervisor()
	if err != nil {
		return err
	}
	w.alloc = ports.New(w.env.PortBase, "--port-base")
	if w.dir, err = sup.TempDir("sdchaos-dns-*", w.env.Keep); err != nil {
		return fmt.Errorf("dns: creating the run's dir: %w", err)
	}
	cfg := cluster.DefaultConfig()
	cfg.Keep, cfg.Log = w.env.Keep, w.env.Log
	if w.Etcd, err = cluster.Start(ctx, sup, w.alloc, cfg); err != nil {
		return fmt.Errorf("dns: starting etcd: %w", err)
	}
	w.onClose(w.Etcd.Close)
	svc := w.opts.Service
	svc.OnRegister = w.sink.Registered
	icfg := InstanceConfig{Service: svc, Zone: DefaultZone, Path: DefaultPath}
	if w.Insts, err = StartInstances(ctx, icfg, w.opts.Instances, w.alloc, w.Etcd.Endpoints()); err != nil {
		return fmt.Errorf("dns: starting the instances: %w", err)
	}
	w.onClose(w.Insts.Close)
	if err := w.startServers(ctx); err != nil {
		return err
	}
	w.env.Printf("dns: CoreDNS %s (%s) over etcd %v; %d instances under %s", coreDNSVersion(), w.describeServers(), w.Etcd.Endpoints(), len(w.Insts.List), w.Host())
	return nil
}

// startServers starts the servers and a relay in front of each.
func (w *World) startServers(ctx context.Context) error {
	backend := &Backend{Endpoints: w.Etcd.Endpoints()}
	stale := w.opts.Stale
	var err error
	if w.Plain, err = w.startServer(ctx, plainName, ServerConfig{Zone: DefaultZone, Etcd: backend}); err != nil {
		return err
	}
	if w.Stale, err = w.startServer(ctx, staleName, ServerConfig{Zone: DefaultZone, Etcd: backend, Cache: &stale}); err != nil {
		return err
	}
	if w.opts.NodeLocal {
		local := ServerConfig{Zone: DefaultZone, Forward: netip.MustParseAddrPort(w.Plain.Addr()),
			Cache: &Cache{ServeStale: &ServeStale{Mode: StaleImmediate}}}
		if w.Local, err = w.startServer(ctx, localName, local); err != nil {
			return err
		}
	}
	return nil
}

// startServer starts one server and the clients' relay to it.
func (w *World) startServer(ctx context.Context, name string, cfg ServerConfig) (*Server, error) {
	sup, err := w.env.Supervisor()
	if err != nil {
		return nil, err
	}
	s, err := StartServer(ctx, sup, w.alloc, w.dir, name, cfg)
	if err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	w.onClose(s.Kill)
	r, err := StartRelay(w.alloc, "dns-"+name, s.Addr())
	if err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	w.onClose(r.Close)
	w.relays[name] = r
	return s, nil
}

// Relays returns the clients' relays, in a fixed order.
func (w *World) Relays() []*Relay {
	var out []*Relay
	for _, n := range []string{plainName, staleName, localName} {
		if r, ok := w.relays[n]; ok {
			out = append(out, r)
		}
	}
	return out
}

// Describe says what runs and for how long.
func (w *World) Describe() string {
	return fmt.Sprintf("CoreDNS %s over etcd (3 members), %d instances; servers: %s; traffic for %s",
		coreDNSVersion(), w.opts.Instances, w.describeServers(), w.env.Duration)
}

// describeServers names each server and its plugins.
func (w *World) describeServers() string {
	s := "plain (etcd, no cache), stale (etcd, " + w.opts.Stale.describe() + ")"
	if w.opts.NodeLocal {
		s += ", local (forward to plain, cache, serve_stale immediate)"
	}
	return s
}

// Close releases everything Start started (safe to call more than once).
func (w *World) Close() {
	w.once.Do(func() {
		w.mu.Lock()
		cs := w.closers
		w.mu.Unlock()
		for i := len(cs) - 1; i >= 0; i-- {
			cs[i]()
		}
	})
}

// coreDNSVersion is the CoreDNS version built in ("?" when unknown).
func coreDNSVersion() string {
	if v, _ := Version(); v != "" {
		return v
	}
	return "?"
}

// describe names the cache's settings.
func (c Cache) describe() string {
	s := "cache"
	if c.MaxTTL > 0 {
		s += fmt.Sprintf(" %s", c.MaxTTL)
	}
	if st := c.ServeStale; st != nil {
		mode, d := st.Mode, st.For
		if mode == "" {
			mode = StaleImmediate
		}
		if d == 0 {
			d = DefaultStaleFor
		}
		s += fmt.Sprintf(", serve_stale %s %s", d, mode)
	}
	if c.ServFail != nil {
		s += fmt.Sprintf(", servfail %s", *c.ServFail)
	}
	return s
}
