package etcd

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/etcdcli"
	"sdchaos/fakeservice"
	"sdchaos/history"
	"sdchaos/linkproxy"
	"sdchaos/ports"
	"sdchaos/rig"
)

// Etcd is the world of the etcd experiments: a 3-member cluster, each
// member its own process, and registered fake instances; optionally a
// loopback proxy in front of each member that every client goes through.
type Etcd struct {
	env     *rig.Env
	alloc   *ports.Allocator
	Cluster *cluster.Cluster
	// Group holds the registered instances (nil when none were asked for).
	Group *fakeservice.Group
	// Svc is the instances' configuration (service name, ttl, renewal).
	Svc fakeservice.Config
	// Proxies, when the rig is proxied, sit between every client (callers
	// and instances) and each member: Proxies[i] forwards to member i.
	Proxies []*linkproxy.Proxy
	// deferred run at Close, last registered first.
	deferred []func()
	// release cleans up what the run wrote on an external cluster (once;
	// nil on a cluster the harness started).
	release func()
	// remote are the members' client URLs of a rig on another process's
	// members (EtcdOptions.Remote).
	remote []string
	closed sync.Once
}

// Defer makes Close call f (a plan's probes release their clients so, a
// fleet stops renewing so), before the instances, proxies and members stop
// and, on an external cluster, before the run's leases are revoked — also
// when the plan never reached its own Close (it failed or panicked): Env.Close
// closes the rig then.
func (r *Etcd) Defer(f func()) { r.deferred = append(r.deferred, f) }

// EtcdOptions says what to build.
type EtcdOptions struct {
	// Instances is how many fake instances to register (0: none).
	Instances int
	// Service configures the instances (ttl, renewal).
	Service fakeservice.Config
	// Proxied puts a linkproxy in front of each member's client port and
	// gives every client the proxy addresses.
	Proxied bool
	// Namespace is, on an external cluster, the key prefix of everything
	// the run writes; empty draws a fresh one ("/sdchaos/<time>-<random>").
	// The processes of one sharded run share one.
	Namespace string
	// Guest marks a process that writes into another process's Namespace
	// (a storm's shard ≥ 1): at Close it revokes its own leases and leaves
	// the keys to the namespace's owner.
	Guest bool
	// Remote, when set, are the client URLs of members another process of
	// the run starts and stops (a storm's shard ≥ 1 gets shard 0's, which
	// come and go phase by phase): the rig starts nothing and attaches to
	// nothing (they may not be up yet), its Cluster is nil and Endpoints
	// returns these. It has no proxies and no instances.
	Remote []string
}

// StartEtcd starts the cluster, the proxies and the instances. Everything
// is released by Close, and by env.Close in any case.
func StartEtcd(ctx context.Context, env *rig.Env, o EtcdOptions) (*Etcd, error) {
	r := &Etcd{env: env, alloc: ports.New(env.PortBase, "--port-base"), Svc: o.Service}
	if len(o.Remote) > 0 {
		return r.onRemote(o)
	}
	if env.Attach != nil {
		if err := r.attach(ctx, o); err != nil {
			return nil, err
		}
	} else if err := r.start(ctx); err != nil {
		return nil, err
	}
	if o.Proxied {
		if err := r.startProxies(); err != nil {
			r.Close()
			return nil, err
		}
	}
	if o.Instances == 0 {
		return r, nil
	}
	var err error
	r.Svc.Log = env.Log
	if r.Group, err = fakeservice.StartGroup(ctx, r.Svc, o.Instances, r.alloc, r.Endpoints()); err != nil {
		r.Close()
		return nil, fmt.Errorf("starting instances: %w", err)
	}
	env.Printf("%d instances registered under %s (ttl %s, renew every %s)", o.Instances, r.Prefix(), r.Svc.TTL, r.Svc.Renew)
	return r, nil
}

// onRemote returns the rig on members another process owns (o.Remote).
func (r *Etcd) onRemote(o EtcdOptions) (*Etcd, error) {
	if o.Proxied || o.Instances > 0 {
		return nil, fmt.Errorf("a rig on another process's members (%s) has no proxies and no instances", strings.Join(o.Remote, ","))
	}
	r.remote = o.Remote
	r.env.Describe(remoteEtcd(o.Remote))
	return r, nil
}

// start starts the embedded cluster.
func (r *Etcd) start(ctx context.Context) error {
	env := r.env
	sup, err := env.Supervisor()
	if err != nil {
		return err
	}
	cfg := cluster.DefaultConfig()
	cfg.Keep, cfg.Log, cfg.Hosts = env.Keep, env.Log, env.MemberHosts(cfg.Size)
	start := time.Now()
	if r.Cluster, err = cluster.Start(ctx, sup, r.alloc, cfg); err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	env.Describe(embeddedEtcd(r.Cluster.Size()))
	env.Printf("etcd: %d members healthy in %.2f s (ports %d–%d%s)", r.Cluster.Size(), time.Since(start).Seconds(),
		env.PortBase, env.PortBase+2*r.Cluster.Size()-1, hostsNote(cfg.Hosts))
	if env.Keep {
		env.Printf("keeping data dirs and etcd logs in %s", r.Cluster.Dir)
	}
	return nil
}

// hostsNote says where the members listen when not on 127.0.0.1.
func hostsNote(hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	return fmt.Sprintf("; members on %s–%s in the run's private network namespace", hosts[0], hosts[len(hosts)-1])
}

// Close runs what was deferred, then stops the instances, the proxies and
// the members; on an external cluster it removes what the rig's process
// wrote there (its leases, the namespace's keys) and heals what the
// nemesis left in place, so that the next world of the run starts clean.
// It runs once; a later call (Env.Close's, on an external cluster) waits
// for the first.
func (r *Etcd) Close() { r.closed.Do(r.close) }

func (r *Etcd) close() {
	for i := len(r.deferred) - 1; i >= 0; i-- {
		r.deferred[i]()
	}
	r.deferred = nil
	if r.Group != nil {
		r.Group.Close()
	}
	for _, p := range r.Proxies {
		p.Close()
	}
	if r.Cluster != nil {
		r.Cluster.Close()
	}
	if r.release != nil {
		r.release()
	}
}

// Prefix returns the key prefix of the instances ("/svc/<service>/") as
// the run's clients see it (inside the run's namespace on an external cluster).
func (r *Etcd) Prefix() string { return fakeservice.Prefix + r.Svc.Service + "/" }

// KeyPrefix returns the instances' prefix as stored in etcd: Prefix inside
// the run's namespace (for clients that are not the harness's: the JSON
// gateway, a user's client).
func (r *Etcd) KeyPrefix() string { return etcdcli.Current().Namespace + r.Prefix() }

// startProxies puts a loopback proxy in front of each member's client port.
func (r *Etcd) startProxies() error {
	for _, n := range r.Cluster.Nodes() {
		port, err := r.alloc.Take("client proxy to etcd " + n.Name)
		if err != nil {
			return err
		}
		p, err := linkproxy.New(ports.Addr(port), n.ClientAddr())
		if err != nil {
			return fmt.Errorf("starting the client proxy to %s: %w", n.Name, err)
		}
		r.Proxies = append(r.Proxies, p)
	}
	r.env.Printf("clients reach etcd through loopback proxies on %s", r.Endpoints())
	return nil
}

// Endpoints returns what clients dial: the proxies when the rig is proxied,
// the members otherwise (EtcdOptions.Remote on another process's).
func (r *Etcd) Endpoints() []string {
	if r.Cluster == nil {
		return r.remote
	}
	if len(r.Proxies) == 0 {
		return r.Cluster.Endpoints()
	}
	eps := make([]string, len(r.Proxies))
	for i, p := range r.Proxies {
		eps[i] = etcdcli.Scheme() + "://" + p.Addr()
	}
	return eps
}

// Source returns a registry source over every client endpoint for the
// instances' service and a function that releases it: the gRPC client, or
// with gateway the JSON gateway over HTTP (fail-fast, as the article's client).
func (r *Etcd) Source(gateway bool) (caller.Source, func(), error) {
	if gateway {
		return caller.GatewaySource{Endpoints: r.Endpoints(), Prefix: r.KeyPrefix()}, func() {}, nil
	}
	cli, err := etcdcli.New(r.Endpoints()...)
	if err != nil {
		return nil, nil, err
	}
	return caller.EtcdSource{Client: cli, Prefix: r.Prefix()}, func() { cli.Close() }, nil
}

// NewCallers creates one caller per config, each with its own registry
// client, and primes the lists of those that start at time zero.
func (r *Etcd) NewCallers(ctx context.Context, cfgs []caller.Config, gateway bool) ([]*caller.Caller, func(), error) {
	var cs []*caller.Caller
	var closers []func()
	closeAll := func() {
		for _, f := range closers {
			f()
		}
	}
	for _, cfg := range cfgs {
		src, release, err := r.Source(gateway)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		c := caller.New(cfg, src)
		closers = append(closers, func() { c.Close(); release() })
		cs = append(cs, c)
		if cfg.Start > 0 {
			continue // a caller that (re)starts later begins cold
		}
		if err := c.Prime(ctx); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return cs, closeAll, nil
}

// CheckReady checks, before the first fault, that the cluster is healthy
// and every instance is listed; the returned function records it as the
// history.ReadyOp op (Count listed, Value expected) into the run's recorder,
// which the ready gate judges.
func (r *Etcd) CheckReady(ctx context.Context) func(rec *history.Recorder) {
	start := time.Now()
	want := 0
	if r.Group != nil {
		want = len(r.Group.Instances)
	}
	n, err := r.countReady(ctx)
	end := time.Now()
	return func(rec *history.Recorder) {
		op := history.Op{Caller: history.ReadyOp, Kind: history.OpGate, Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(end),
			Count: n, Value: fmt.Sprint(want), Outcome: history.OK}
		if err != nil {
			op.Outcome, op.Err = history.Fail, err.Error()
		}
		rec.Add(op)
	}
}

func (r *Etcd) countReady(ctx context.Context) (int, error) {
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := r.Cluster.WaitHealthy(wctx); err != nil {
		return 0, fmt.Errorf("cluster not healthy: %w", err)
	}
	cli, err := r.Cluster.Client()
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	return cluster.CountPrefix(ctx, cli, r.Prefix(), 2*time.Second, false)
}

// NewRealClients creates the real clients (etcd's naming resolver + a gRPC
// balancer) over the rig's endpoints for the instances' gRPC side, and
// primes those that start at time zero.
func (r *Etcd) NewRealClients(ctx context.Context, cfgs []caller.GRPCConfig) ([]*caller.GRPCCaller, func(), error) {
	var out []*caller.GRPCCaller
	closeAll := func() {
		for _, c := range out {
			c.Close()
		}
	}
	for _, cfg := range cfgs {
		cfg.Endpoints, cfg.Target = r.Endpoints(), fakeservice.GRPCTarget(r.Svc.Service)
		c := caller.NewGRPCCaller(cfg)
		out = append(out, c)
		if cfg.Start > 0 {
			continue
		}
		if err := c.Prime(ctx); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return out, closeAll, nil
}
