package xds

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/caller"
	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/etcdcli"
	"sdchaos/experiment"
	"sdchaos/fakeservice"
	"sdchaos/history"
	"sdchaos/linkproxy"
	"sdchaos/ports"
	"sdchaos/rig"
)

// world is the xDS world behind the seam: a real 3-member etcd, the
// instances on its leases (gRPC health servers, fakeservice), one control
// plane process reading etcd through a loopback proxy per member (the
// links registry-unreachable cuts), and the experiment's callers: gRPC-Go
// xDS clients (each its own process) and policy callers reading the
// control plane's EDS.
type world struct {
	env  *rig.Env
	x    experiment.Experiment
	sink *rig.Sink

	sup     *childproc.Supervisor
	alloc   *ports.Allocator
	dir     string
	etcd    *cluster.Cluster
	proxies []*linkproxy.Proxy
	group   *fakeservice.Group
	cp      *ControlPlane
	// listCli reads etcd directly (the listed sampler, the ready check).
	listCli *clientv3.Client
	clients []*recordedClient
	callers []*caller.Caller
	watch   *cpWatcher
	closed  sync.Once
}

func newWorld(env *rig.Env, x experiment.Experiment) *world {
	return &world{env: env, x: x, sink: &rig.Sink{}}
}

// Describe says what runs and for how long.
func (w *world) Describe() string {
	var parts []string
	for _, c := range w.x.Callers {
		parts = append(parts, c.Name)
	}
	return fmt.Sprintf("xDS world (etcd %d members, %d instances, control plane %s); callers: %s for %s",
		cluster.DefaultConfig().Size, w.x.Instances.Count, DefaultControlPlaneSettings(Service).OnWatchFail, strings.Join(parts, ", "), w.env.Duration)
}

// Start starts etcd, the proxies in front of it, the instances and the
// control plane; everything is released by Close (and by the Env's Close).
func (w *world) Start(ctx context.Context) error {
	w.env.AddCloser(w.Close)
	var err error
	if w.sup, err = w.env.Supervisor(); err != nil {
		return err
	}
	w.alloc = ports.New(w.env.PortBase, "--port-base")
	if w.dir, err = w.sup.TempDir("sdchaos-xds-*", w.env.Keep); err != nil {
		return fmt.Errorf("xds: temp dir: %w", err)
	}
	if err := w.startEtcd(ctx); err != nil {
		return err
	}
	if err := w.startInstances(ctx); err != nil {
		return err
	}
	return w.startControlPlane(ctx)
}

// startEtcd starts the cluster and a loopback proxy in front of each member.
func (w *world) startEtcd(ctx context.Context) error {
	cfg := cluster.DefaultConfig()
	cfg.Keep, cfg.Log = w.env.Keep, w.env.Log
	t0 := time.Now()
	var err error
	if w.etcd, err = cluster.Start(ctx, w.sup, w.alloc, cfg); err != nil {
		return fmt.Errorf("xds: starting etcd: %w", err)
	}
	w.env.Printf("etcd: %d members healthy in %.2f s", w.etcd.Size(), time.Since(t0).Seconds())
	for _, n := range w.etcd.Nodes() {
		port, err := w.alloc.Take("control plane's proxy to etcd " + n.Name)
		if err != nil {
			return err
		}
		p, err := linkproxy.New(ports.Addr(port), n.ClientAddr())
		if err != nil {
			return fmt.Errorf("xds: starting the proxy to etcd %s: %w", n.Name, err)
		}
		w.proxies = append(w.proxies, p)
	}
	if w.listCli, err = etcdcli.New(w.etcd.Endpoints()...); err != nil {
		return fmt.Errorf("xds: etcd client: %w", err)
	}
	return nil
}

// startInstances registers the instances on their leases, directly with
// the members (not through the control plane's proxies).
func (w *world) startInstances(ctx context.Context) error {
	cfg := instanceConfig(w.x)
	cfg.Log, cfg.OnRegister = w.env.Log, w.sink.Registered
	if w.x.Instances.Spread > 0 {
		cfg.Rejoin = rig.NewDraws(w.env, w.x.Instances.Spread.D()).Next
	}
	var err error
	if w.group, err = fakeservice.StartGroup(ctx, cfg, w.x.Instances.Count, w.alloc, w.etcd.Endpoints()); err != nil {
		return fmt.Errorf("xds: starting instances: %w", err)
	}
	w.env.Printf("%d instances registered under %s (ttl %s, renew every %s)", w.x.Instances.Count, fakeservice.GRPCTarget(Service), cfg.TTL, cfg.Renew)
	return nil
}

// startControlPlane starts the control plane on the proxies' addresses.
func (w *world) startControlPlane(ctx context.Context) error {
	port, err := w.alloc.Take("xDS control plane")
	if err != nil {
		return err
	}
	eps := make([]string, len(w.proxies))
	for i, p := range w.proxies {
		eps[i] = etcdcli.Scheme() + "://" + p.Addr()
	}
	if w.cp, err = StartControlPlane(ctx, w.sup, "xds-cp", w.dir, port, eps, DefaultControlPlaneSettings(Service)); err != nil {
		return fmt.Errorf("xds: %w", err)
	}
	w.env.Describe(describeWorld(w.etcd.Size()))
	w.env.Printf("control plane %s on %s ready in %.2f s (%s)", w.cp.Name, w.cp.Addr, w.cp.ReadyIn.Seconds(), xdsRegistry{}.Describe())
	return nil
}

// Recorder checks that etcd lists every instance and that the control
// plane serves them, and returns the recorder with that check in it.
func (w *world) Recorder(ctx context.Context) (*history.Recorder, time.Duration) {
	start := time.Now()
	n, err := w.readyCount(ctx)
	end := time.Now()
	rec := rig.NewRecorder(w.env, 0)
	op := history.Op{Caller: history.ReadyOp, Kind: history.OpGate, Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(end),
		Count: n, Value: strconv.Itoa(w.x.Instances.Count), Outcome: history.OK}
	if err != nil {
		op.Outcome, op.Err = history.Fail, err.Error()
	}
	rec.Add(op)
	w.sink.Set(rec)
	return rec, w.env.Duration
}

// readyCount reads the count etcd lists and checks the control plane
// serves as many endpoints.
func (w *world) readyCount(ctx context.Context) (int, error) {
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	n, err := w.countListed(c)
	if err != nil {
		return 0, fmt.Errorf("etcd: %w", err)
	}
	st, err := w.cp.Status()
	if err != nil {
		return n, fmt.Errorf("control plane: %w", err)
	}
	if st.Endpoints != n {
		return n, fmt.Errorf("control plane serves %d endpoints, etcd lists %d", st.Endpoints, n)
	}
	return n, nil
}

// countListed counts the instances' endpoint keys in etcd.
func (w *world) countListed(ctx context.Context) (int, error) {
	resp, err := w.listCli.Get(ctx, fakeservice.GRPCTarget(Service)+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return int(resp.Count), nil
}

// Finish logs what the control plane served at the end and keeps when it
// lost and regained the registry.
func (w *world) Finish(context.Context, *history.Recorder) (time.Duration, any, error) {
	if st, err := w.cp.Status(); err == nil {
		w.env.Printf("control plane at the end: %d endpoints, registry ok %v, %d ADS streams, %d responses", st.Endpoints, st.RegistryOK, st.Streams, st.Responses)
	}
	data := w.watch.data()
	w.env.Printf("%s", data)
	return w.env.Duration, data, nil
}

// Close releases what Start started (safe to call more than once).
func (w *world) Close() {
	w.closed.Do(func() {
		for _, c := range w.clients {
			c.close()
		}
		for _, c := range w.callers {
			c.Close()
		}
		if w.cp != nil {
			w.cp.Kill()
		}
		if w.group != nil {
			w.group.Close()
		}
		if w.listCli != nil {
			w.listCli.Close()
		}
		for _, p := range w.proxies {
			p.Close()
		}
		if w.etcd != nil {
			w.etcd.Close()
		}
	})
}
