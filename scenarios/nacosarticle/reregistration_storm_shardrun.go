package nacosarticle

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"sdchaos/clock"
	"sdchaos/etcdcli"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/linkproxy"
	"sdchaos/ports"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/storm"
)

// recorder returns the run's recorder: a sharded run waits for --start-at
// and takes it as the zero every shard shares.
func (s *reregistrationStorm) recorder(ctx context.Context, env *scenarios.Env) (*history.Recorder, error) {
	if !s.Shard.Sharded() {
		return rig.NewRecorder(nil, 0), nil
	}
	return storm.SharedZero(ctx, s.Shard, s.StartAt.Time, env.Printf)
}

// announcePhase tells the other shards (shard 0 only) that phase id's
// cluster is up.
func (s *reregistrationStorm) announcePhase(ctx context.Context, w *stormWorld, id string) error {
	if !s.Shard.Sharded() {
		return nil
	}
	return storm.NewCoord(w.direct, countTimeout).AnnouncePhase(ctx, id)
}

// announceLoss tells the other shards (shard 0 only) when the links go
// down: every shard cuts its own links then, and heals them hold later.
// A registry too loaded to take the write is reported, not fatal: shard 0
// runs the phase alone (its counts already say the world was not as
// planned) and the other shards record the phase as missed.
func (s *reregistrationStorm) announceLoss(ctx context.Context, env *scenarios.Env, w *stormWorld, id string, at time.Time) {
	if !s.Shard.Sharded() {
		return
	}
	if err := storm.NewCoord(w.direct, countTimeout).AnnounceLoss(ctx, id, at); err != nil {
		env.Printf("shard %s: the other shards miss phase %s: %v", s.Shard.String(), id, err)
	}
}

// awaitShards waits (shard 0 only) until every other shard says its fleet
// is back or gave up, at most --duration + 15 s, so that the cluster
// outlives their re-registration.
func (s *reregistrationStorm) awaitShards(ctx context.Context, env *scenarios.Env, w *stormWorld, id string) {
	if !s.Shard.Sharded() {
		return
	}
	got := storm.NewCoord(w.direct, countTimeout).CountBack(ctx, id, s.Shard.N-1, env.Duration+15*time.Second)
	if got < s.Shard.N-1 {
		env.Printf("only %d of the %d other shards reported their re-registration (%s)", got, s.Shard.N-1, id)
	}
}

// shardPhase is one phase on a shard ≥ 1: its own proxies in front of the
// members shard 0 started, its slice of the fleet registered until shard 0
// fixes the loss, the same loss and heal on its own links at the same
// instants, the re-registration, then a word to shard 0.
func (s *reregistrationStorm) shardPhase(ctx context.Context, env *scenarios.Env, rec *history.Recorder, n int, limit uint64, b storm.Backoff) (stormPhase, error) {
	p := stormPhase{N: n, Strategy: strategyName(b)}
	meter := storm.StartSelf(s.Shard.Name())
	links, err := s.shardLinks(ctx, env)
	defer links.close()
	if err != nil {
		return p, err
	}
	coord, proxies := links.coord, links.proxies
	if err := coord.WaitPhase(ctx, p.id(), steadyLimit(n)+time.Minute); err != nil {
		return p, fmt.Errorf("shard %s: shard 0 did not start phase %s: %w", s.Shard.String(), p.id(), err)
	}
	log := &storm.Log{}
	fleet, err := s.newFleet(n, limit, links.endpoints(), netip.Addr{}, log)
	if err != nil {
		return p, err
	}
	defer fleet.Close()
	p.Clients = fleet.Clients()
	fleet.StartRenewing(env.Rand)
	lossAt, err := s.awaitLoss(ctx, env, coord, fleet, p.id(), n)
	if err != nil {
		if ctx.Err() != nil {
			return p, err
		}
		env.Printf("%v: this shard misses the phase", err)
		p.Cost = []storm.ProcCost{meter.Stop()}
		return p, nil // recorded without a heal: the shard's own check says it missed a phase
	}
	p.Start = rec.Offset(lossAt)
	tl := fault.Timeline{{At: p.Start, For: s.hold(n), Fault: linkLoss{cut: fault.Blackhole{Proxies: proxies}, fleet: fleet, backoff: b, rand: env.Rand}}}
	env.Printf("shard %s, %s at N = %d: %s", s.Shard.String(), p.Strategy, n, tl.Describe())
	if err := tl.Run(ctx, rec); err != nil {
		return p, err
	}
	settle, cancel := context.WithTimeout(ctx, env.Duration)
	p.Back, p.Last = fleet.Back(settle)
	cancel()
	if err := coord.ReportBack(ctx, p.id(), s.Shard.K, p.Back, fleet.Size()); err != nil {
		env.Printf("%v", err)
	}
	p.End = rec.Offset(time.Now())
	recs := log.Records()
	p.Calls, p.Records, p.HealAt = storm.Summarize(recs), recs, rec.Offset(log.Zero())
	p.Started, p.InFlight = storm.Buckets(recs, bucketWidth, bucketCount)
	p.Cost = []storm.ProcCost{meter.Stop()}
	env.Printf("shard %s, %s: %d of %d registered again, the last %.2f s after the link returned", s.Shard.String(), p.Strategy, p.Back, fleet.Size(), p.Last.Seconds())
	return p, nil
}

// awaitLoss registers the shard's registrants (again and again, as
// shard 0's steady state does) until shard 0 announces the loss, and
// returns its instant.
func (s *reregistrationStorm) awaitLoss(ctx context.Context, env *scenarios.Env, coord *storm.Coord, fleet *storm.Fleet, id string, n int) (time.Time, error) {
	deadline := time.Now().Add(2*steadyLimit(n) + 30*time.Second)
	t := time.Now()
	for time.Now().Before(deadline) {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		live := fleet.RegisterMissing(rctx, 64)
		cancel()
		at, ok, err := coord.Loss(ctx, id)
		if err != nil {
			return time.Time{}, fmt.Errorf("shard %s: %w", s.Shard.String(), err)
		}
		if ok {
			env.Printf("shard %s: %d of %d registrants live after %.1f s; the loss comes in %.1f s", s.Shard.String(), live, fleet.Size(),
				time.Since(t).Seconds(), time.Until(at).Seconds())
			return at, nil
		}
		if err := clock.SleepUntil(ctx, time.Now().Add(storm.PollInterval)); err != nil {
			return time.Time{}, err
		}
	}
	return time.Time{}, fmt.Errorf("shard %s: shard 0 announced no loss for %s", s.Shard.String(), id)
}

// shardLinks is what a shard ≥ 1 reaches the members through: its own
// loopback proxies in front of them (the links its fault cuts) and a
// client for the coordination keys, straight to the members.
type shardLinks struct {
	coord   *storm.Coord
	proxies []*linkproxy.Proxy
	closers []func()
}

// shardLinks connects to the members shard 0 started (--shard-endpoints),
// or attaches to the cluster every shard was given (--endpoints) as a
// guest in the run's shared namespace: at the phase's end this shard
// revokes its own leases and leaves the keys to shard 0.
func (s *reregistrationStorm) shardLinks(ctx context.Context, env *scenarios.Env) (*shardLinks, error) {
	l := &shardLinks{}
	if env.External == nil {
		coord, err := storm.DialCoord(s.ShardEndpoints, countTimeout)
		if err != nil {
			return l, err
		}
		l.coord, l.closers = coord, append(l.closers, coord.Close)
		l.proxies, err = s.shardProxies(env)
		l.closers = append(l.closers, func() { closeProxies(l.proxies) })
		return l, err
	}
	r, err := rig.StartEtcd(ctx, env, rig.EtcdOptions{Proxied: true, Namespace: s.namespace(env), Guest: true})
	if err != nil {
		return l, err
	}
	l.closers, l.proxies = append(l.closers, r.Close), r.Proxies
	direct, err := r.Cluster.Client()
	if err != nil {
		return l, err
	}
	l.coord, l.closers = storm.NewCoord(direct, countTimeout), append(l.closers, func() { direct.Close() })
	return l, nil
}

// endpoints returns the proxies' URLs (what the shard's registrants dial).
func (l *shardLinks) endpoints() []string { return proxyURLs(l.proxies) }

// close releases the links, last opened first.
func (l *shardLinks) close() {
	for i := len(l.closers) - 1; i >= 0; i-- {
		l.closers[i]()
	}
}

// shardProxies puts one loopback proxy of this shard in front of each
// member (ports from --port-base): the links this shard's fault cuts.
func (s *reregistrationStorm) shardProxies(env *scenarios.Env) ([]*linkproxy.Proxy, error) {
	alloc := ports.New(env.PortBase, "--port-base")
	var out []*linkproxy.Proxy
	for _, ep := range s.ShardEndpoints {
		port, err := alloc.Take("client proxy to " + ep)
		if err != nil {
			return out, err
		}
		p, err := linkproxy.New(ports.Addr(port), strings.TrimPrefix(ep, "http://"))
		if err != nil {
			return out, fmt.Errorf("starting the client proxy to %s: %w", ep, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func closeProxies(ps []*linkproxy.Proxy) {
	for _, p := range ps {
		p.Close()
	}
}

func proxyURLs(ps []*linkproxy.Proxy) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = etcdcli.Scheme() + "://" + p.Addr()
	}
	return out
}
