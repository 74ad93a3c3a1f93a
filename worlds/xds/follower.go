package xds

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/naming/endpoints"

	"sdchaos/fakeservice"
)

// registryView is one reading of the registry: the instances' gRPC
// endpoints, or the failure that lost the control plane its view.
type registryView struct {
	Endpoints []netip.AddrPort
	Err       error
}

// registryFollower follows the gRPC endpoints the instances keep in etcd
// (fakeservice registers them on its lease through etcd's naming endpoints
// manager under fakeservice.GRPCTarget(service)), read through the same
// manager. The watch runs with WithRequireLeader, so it closes when its
// member loses the leader; a linearizable count read every poll catches a
// registry that is down altogether (a watch alone just retries silently).
type registryFollower struct {
	cli           *clientv3.Client
	em            endpoints.Manager
	prefix        string
	poll, timeout time.Duration
	views         chan<- registryView
}

func newRegistryFollower(cli *clientv3.Client, service string, poll, timeout time.Duration, views chan<- registryView) (*registryFollower, error) {
	em, err := endpoints.NewManager(cli, fakeservice.GRPCTarget(service))
	if err != nil {
		return nil, fmt.Errorf("registry: endpoints manager: %w", err)
	}
	return &registryFollower{cli: cli, em: em, prefix: fakeservice.GRPCTarget(service) + "/", poll: poll, timeout: timeout, views: views}, nil
}

// run follows the registry until ctx ends, sending a view on every change
// and on every failure, and subscribing again after a failure.
func (f *registryFollower) run(ctx context.Context) {
	for ctx.Err() == nil {
		err := f.followOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		f.send(ctx, registryView{Err: err})
		sleep(ctx, f.poll)
	}
}

// followOnce subscribes, then follows until the watch closes or a
// liveness read fails; it returns why it stopped.
func (f *registryFollower) followOnce(ctx context.Context) error {
	sub, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	if err := f.probe(ctx); err != nil {
		return err
	}
	wch, err := f.subscribe(sub)
	if err != nil {
		return err
	}
	state := map[string]string{}
	drain(wch, state)
	f.send(ctx, registryView{Endpoints: addrs(state)})
	tick := time.NewTicker(f.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ups, ok := <-wch:
			if !ok {
				return fmt.Errorf("registry: watch closed")
			}
			apply(ups, state)
			f.send(ctx, registryView{Endpoints: addrs(state)})
		case <-tick.C:
			if err := f.probe(ctx); err != nil {
				return err
			}
		}
	}
}

// subscribe opens the manager's watch channel (its first message is the
// current list), bounded by the read timeout.
func (f *registryFollower) subscribe(sub context.Context) (endpoints.WatchChannel, error) {
	type result struct {
		wch endpoints.WatchChannel
		err error
	}
	done := make(chan result, 1)
	go func() {
		wch, err := f.em.NewWatchChannel(sub)
		done <- result{wch, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("registry: listing: %w", r.err)
		}
		return r.wch, nil
	case <-time.After(f.timeout):
		return nil, fmt.Errorf("registry: listing: no answer within %s", f.timeout)
	}
}

// probe is a linearizable count of the endpoints' keys: it fails without
// a quorum, which a serializable read would not notice.
func (f *registryFollower) probe(ctx context.Context) error {
	c, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if _, err := f.cli.Get(c, f.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil {
		return fmt.Errorf("registry: liveness read: %w", err)
	}
	return nil
}

func (f *registryFollower) send(ctx context.Context, v registryView) {
	select {
	case f.views <- v:
	case <-ctx.Done():
	}
}

// drain applies the updates already waiting (the initial list).
func drain(wch endpoints.WatchChannel, state map[string]string) {
	for {
		select {
		case ups, ok := <-wch:
			if !ok {
				return
			}
			apply(ups, state)
		default:
			return
		}
	}
}

func apply(ups []*endpoints.Update, state map[string]string) {
	for _, u := range ups {
		switch u.Op {
		case endpoints.Add:
			state[u.Key] = u.Endpoint.Addr
		case endpoints.Delete:
			delete(state, u.Key)
		}
	}
}

// addrs returns the parseable addresses of state, sorted.
func addrs(state map[string]string) []netip.AddrPort {
	var out []netip.AddrPort
	for _, a := range state {
		if ap, err := netip.ParseAddrPort(a); err == nil {
			out = append(out, ap)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
