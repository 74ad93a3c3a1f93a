package nacosarticle

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"sdchaos/clock"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
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
func (s *reregistrationStorm) announcePhase(ctx context.Context, f *stormFleet, id string) error {
	if !s.Shard.Sharded() {
		return nil
	}
	return storm.NewCoord(f.direct, countTimeout).AnnouncePhase(ctx, id)
}

// announceLoss tells the other shards (shard 0 only) when the links go
// down: every shard cuts its own links then, and heals them hold later.
// A registry too loaded to take the write is reported, not fatal: shard 0
// runs the phase alone (its counts already say the world was not as
// planned) and the other shards record the phase as missed.
func (s *reregistrationStorm) announceLoss(ctx context.Context, env *scenarios.Env, f *stormFleet, id string, at time.Time) {
	if !s.Shard.Sharded() {
		return
	}
	if err := storm.NewCoord(f.direct, countTimeout).AnnounceLoss(ctx, id, at); err != nil {
		env.Printf("shard %s: the other shards miss phase %s: %v", s.Shard.String(), id, err)
	}
}

// awaitShards waits (shard 0 only) until every other shard says its fleet
// is back or gave up, at most --duration + 15 s, so that the cluster
// outlives their re-registration.
func (s *reregistrationStorm) awaitShards(ctx context.Context, env *scenarios.Env, f *stormFleet, id string) {
	if !s.Shard.Sharded() {
		return
	}
	got := storm.NewCoord(f.direct, countTimeout).CountBack(ctx, id, s.Shard.N-1, env.Duration+15*time.Second)
	if got < s.Shard.N-1 {
		env.Printf("only %d of the %d other shards reported their re-registration (%s)", got, s.Shard.N-1, id)
	}
}

// shardPhase is one phase on a shard ≥ 1: its slice of the fleet, dialling
// the members, registered until shard 0 fixes the loss, the same loss and
// heal on its own links (held in its connections) at the same instants,
// the re-registration, then a word to shard 0.
func (s *reregistrationStorm) shardPhase(ctx context.Context, env *scenarios.Env, rec *history.Recorder, n int, limit uint64, b storm.Backoff) (stormPhase, error) {
	p := stormPhase{N: n, Strategy: strategyName(b)}
	meter := storm.StartSelf(s.Shard.Name())
	links, err := s.shardLinks(ctx, env)
	defer links.close()
	if err != nil {
		return p, err
	}
	coord := links.coord
	if err := coord.WaitPhase(ctx, p.id(), steadyLimit(n)+time.Minute); err != nil {
		return p, fmt.Errorf("shard %s: shard 0 did not start phase %s: %w", s.Shard.String(), p.id(), err)
	}
	log := &storm.Log{}
	conn := storm.ConnOptions(netip.Addr{})
	conn.Cut = fakeservice.NewCut()
	fleet, err := s.newFleet(n, limit, links.endpoints, conn, log)
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
	cut := fault.BlackholeConns{Cut: conn.Cut, Targets: links.targets()}
	tl := fault.Timeline{{At: p.Start, For: s.hold(n), Fault: linkLoss{cut: cut, fleet: fleet, backoff: b, rand: env.Rand}}}
	env.Printf("shard %s, %s at N = %d: %s", s.Shard.String(), p.Strategy, n, tl.Describe())
	if err := tl.Run(ctx, rec); err != nil {
		return p, err
	}
	settle, cancel := context.WithTimeout(ctx, env.Duration)
	p.Back, p.Last = fleet.Back(settle)
	cancel()
	late := fleet.Lateness()
	p.Lateness = &late
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

// shardLinks is what a shard ≥ 1 reaches the members with: their client
// URLs (its registrants dial them; its cut holds their connections) and a
// client for the coordination keys.
type shardLinks struct {
	endpoints []string
	coord     *storm.Coord
	closers   []func()
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
		l.endpoints, l.coord, l.closers = s.ShardEndpoints, coord, append(l.closers, coord.Close)
		return l, nil
	}
	r, err := rig.StartEtcd(ctx, env, rig.EtcdOptions{Namespace: s.namespace(env), Guest: true})
	if err != nil {
		return l, err
	}
	l.closers, l.endpoints = append(l.closers, r.Close), r.Cluster.Endpoints()
	direct, err := r.Cluster.Client()
	if err != nil {
		return l, err
	}
	l.coord, l.closers = storm.NewCoord(direct, countTimeout), append(l.closers, func() { direct.Close() })
	return l, nil
}

// targets returns the members' client addresses (host:port).
func (l *shardLinks) targets() []string {
	out := make([]string, len(l.endpoints))
	for i, ep := range l.endpoints {
		if _, addr, ok := strings.Cut(ep, "://"); ok {
			ep = addr
		}
		out[i] = ep
	}
	return out
}

// close releases the links, last opened first.
func (l *shardLinks) close() {
	for i := len(l.closers) - 1; i >= 0; i-- {
		l.closers[i]()
	}
}
