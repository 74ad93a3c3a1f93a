package scenarios

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/etcdcli"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/linkproxy"
	"sdchaos/ports"
	"sdchaos/report"
)

// rig is the common set-up of the etcd experiments: a 3-member cluster and
// registered fake instances.
type rig struct {
	env     *Env
	alloc   *ports.Allocator
	cluster *cluster.Cluster
	group   *fakeservice.Group
	svc     fakeservice.Config
	// proxies, when the rig is proxied, sit between every client (callers
	// and instances) and each member: proxies[i] forwards to member i.
	proxies []*linkproxy.Proxy
}

// rigOptions changes how the rig is built.
type rigOptions struct {
	// proxied puts a linkproxy in front of each member's client port and
	// gives every client the proxy addresses.
	proxied bool
}

// startRig starts the cluster and the instances. Everything is released by
// env.Close (the command calls it), and also by rig.close.
func startRig(ctx context.Context, env *Env, sp serviceParams, opts ...rigOptions) (*rig, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, fmt.Errorf("starting supervisor: %w", err)
	}
	r := &rig{env: env, alloc: ports.New(env.PortBase, "--port-base"), svc: sp.config()}
	cfg := cluster.DefaultConfig()
	cfg.Keep, cfg.Log = env.Keep, env.Log
	start := time.Now()
	if r.cluster, err = cluster.Start(ctx, sup, r.alloc, cfg); err != nil {
		return nil, fmt.Errorf("starting etcd: %w", err)
	}
	env.Printf("etcd: %d members healthy in %.2f s (ports %d–%d)", r.cluster.Size(), time.Since(start).Seconds(),
		env.PortBase, env.PortBase+2*r.cluster.Size()-1)
	if env.Keep {
		env.Printf("keeping data dirs and etcd logs in %s", r.cluster.Dir)
	}
	if len(opts) > 0 && opts[0].proxied {
		if err := r.startProxies(); err != nil {
			r.close()
			return nil, err
		}
	}
	r.svc.Log = env.Log
	if sp.Instances == 0 {
		return r, nil
	}
	if r.group, err = fakeservice.StartGroup(ctx, r.svc, sp.Instances, r.alloc, r.endpoints()); err != nil {
		r.close()
		return nil, fmt.Errorf("starting instances: %w", err)
	}
	env.Printf("%d instances registered under %s%s/ (ttl %s, renew every %s)", sp.Instances, fakeservice.Prefix,
		r.svc.Service, r.svc.TTL, r.svc.Renew)
	return r, nil
}

func (r *rig) close() {
	if r.group != nil {
		r.group.Close()
	}
	for _, p := range r.proxies {
		p.Close()
	}
	if r.cluster != nil {
		r.cluster.Close()
	}
}

// startProxies puts a loopback proxy in front of each member's client port.
func (r *rig) startProxies() error {
	for _, n := range r.cluster.Nodes() {
		port, err := r.alloc.Take("client proxy to etcd " + n.Name)
		if err != nil {
			return err
		}
		p, err := linkproxy.New(ports.Addr(port), ports.Addr(n.ClientPort))
		if err != nil {
			return fmt.Errorf("starting the client proxy to %s: %w", n.Name, err)
		}
		r.proxies = append(r.proxies, p)
	}
	r.env.Printf("clients reach etcd through loopback proxies on %s", r.endpoints())
	return nil
}

// endpoints returns what clients dial: the proxies when the rig is proxied,
// the members otherwise.
func (r *rig) endpoints() []string {
	if len(r.proxies) == 0 {
		return r.cluster.Endpoints()
	}
	eps := make([]string, len(r.proxies))
	for i, p := range r.proxies {
		eps[i] = "http://" + p.Addr()
	}
	return eps
}

// source returns a registry source over every client endpoint for the rig's service.
func (r *rig) source() (caller.EtcdSource, error) {
	cli, err := etcdcli.New(r.endpoints()...)
	if err != nil {
		return caller.EtcdSource{}, err
	}
	return caller.EtcdSource{Client: cli, Prefix: fakeservice.Prefix + r.svc.Service + "/"}, nil
}

// newCallers creates one caller per config, each with its own registry
// client, and primes their lists.
func (r *rig) newCallers(ctx context.Context, cfgs []caller.Config) ([]*caller.Caller, func(), error) {
	var cs []*caller.Caller
	var closers []func()
	closeAll := func() {
		for _, f := range closers {
			f()
		}
	}
	for _, cfg := range cfgs {
		src, err := r.source()
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		c := caller.New(cfg, src)
		closers = append(closers, func() { c.Close(); src.Client.Close() })
		if cfg.Start > 0 {
			cs = append(cs, c) // a caller that (re)starts later begins cold
			continue
		}
		if err := c.Prime(ctx); err != nil {
			closeAll()
			return nil, nil, err
		}
		cs = append(cs, c)
	}
	return cs, closeAll, nil
}

// runTraffic runs the callers for d from rec.T0 while the timeline fires,
// and waits for both.
func runTraffic(ctx context.Context, rec *report.Recorder, cs []*caller.Caller, tl fault.Timeline, d time.Duration) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range cs {
		g.Go(func() error { return c.Run(gctx, rec, d) })
	}
	g.Go(func() error { return tl.Run(gctx, rec.T0(), rec.MarkAt) })
	return g.Wait()
}

// trafficPlan is a traffic experiment: callers side by side against the same
// rig, and a fault timeline built once the rig is up.
type trafficPlan struct {
	callers  []caller.Config
	timeline func(r *rig) (fault.Timeline, error)
	rig      rigOptions
	// after, if set, runs once the traffic has ended, before the rig is
	// torn down (to read state that only the rig knows).
	after func(r *rig)
}

// runTrafficPlan starts the rig, primes the callers, runs traffic for
// env.Duration while the timeline fires, and returns the recorded history.
func runTrafficPlan(ctx context.Context, env *Env, sp serviceParams, plan trafficPlan) (*report.Recorder, error) {
	r, err := startRig(ctx, env, sp, plan.rig)
	if err != nil {
		return nil, err
	}
	defer r.close()
	cs, closeCallers, err := r.newCallers(ctx, plan.callers)
	if err != nil {
		return nil, fmt.Errorf("starting callers: %w", err)
	}
	defer closeCallers()
	tl, err := plan.timeline(r)
	if err != nil {
		return nil, fmt.Errorf("building the fault timeline: %w", err)
	}
	rec := report.NewRecorder(time.Now().Add(startLead))
	env.Printf("traffic for %s at %g req/s per caller; faults: %s", env.Duration, plan.callers[0].Rate, describeTimeline(tl))
	if err := runTraffic(ctx, rec, cs, tl, env.Duration); err != nil {
		return nil, fmt.Errorf("running traffic: %w", err)
	}
	if plan.after != nil {
		plan.after(r)
	}
	return rec, nil
}

func describeTimeline(tl fault.Timeline) string {
	parts := make([]string, 0, len(tl))
	for _, st := range tl {
		d := fmt.Sprintf("%s at %s", st.Fault.Name(), st.At)
		if st.For > 0 {
			d += " for " + st.For.String()
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, ", ")
}

// startLead is how far in the future time zero is set once everything is
// ready, so the first sends are not late.
const startLead = 100 * time.Millisecond

// schedSlack is the allowance for timer and goroutine scheduling delays in
// bounds derived from configured intervals.
const schedSlack = 50 * time.Millisecond

// seconds returns the number of table columns for a timeline of length d.
func seconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// perSecondDue returns how many sends the schedule puts in each second.
func perSecondDue(rate float64, secs int) []int {
	s := caller.Schedule{T0: time.Unix(0, 0), Rate: rate}
	out := make([]int, secs)
	for i := range out {
		out[i] = s.Count(time.Duration(i+1)*time.Second) - s.Count(time.Duration(i)*time.Second)
	}
	return out
}
