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
	"sdchaos/worlds/etcd"
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

// shardFleet is a phase's fleet on a shard ≥ 1 (etcd.Fleet): its slice of
// the registrants, dialling the members, registered until shard 0 fixes
// the loss; the same loss and heal on its own links (held in its
// connections) at the same instants, the re-registration, then a word to
// shard 0.
type shardFleet struct {
	s     *reregistrationStorm
	env   *scenarios.Env
	n     int
	limit uint64
	p     stormPhase
	meter *storm.SelfMeter
	coord *storm.Coord
	// closeCoord releases the coordination client.
	closeCoord func()
	fleet      *storm.Fleet
	log        *storm.Log
	cut        *fakeservice.Cut
	// lossAt is the loss shard 0 announced (zero: this shard missed the phase).
	lossAt time.Time
}

// newShardFleet returns shard ≥ 1's fleet of strategy b's phase at size n;
// the harness's meter runs from now to the phase's end.
func (s *reregistrationStorm) newShardFleet(env *scenarios.Env, n int, limit uint64, b storm.Backoff) *shardFleet {
	return &shardFleet{s: s, env: env, n: n, limit: limit, p: stormPhase{N: n, Strategy: strategyName(b)},
		meter: storm.StartSelf(s.Shard.Name()), log: &storm.Log{}, closeCoord: func() {}}
}

// shardOptions is the rig of a shard ≥ 1: shard 0's members, which it
// starts and stops (--shard-endpoints), or the cluster every shard
// attached to (--endpoints), as a guest in the run's shared namespace: at
// the phase's end this shard revokes its own leases and leaves the keys to
// shard 0.
func (s *reregistrationStorm) shardOptions(env *scenarios.Env) etcd.EtcdOptions {
	if env.Attach == nil {
		return etcd.EtcdOptions{Remote: s.ShardEndpoints}
	}
	return etcd.EtcdOptions{Namespace: s.namespace(env), Guest: true}
}

// Start waits until shard 0 started the phase, creates this shard's
// registrants on r's members and registers them (again and again, as
// shard 0's steady state does) until shard 0 announces the loss. A loss
// not announced in time is reported, not fatal: the shard misses the phase.
func (f *shardFleet) Start(ctx context.Context, r *etcd.Etcd) error {
	s := f.s
	if err := f.dialCoord(r); err != nil {
		return err
	}
	if err := f.coord.WaitPhase(ctx, f.p.id(), steadyLimit(f.n)+time.Minute); err != nil {
		return fmt.Errorf("shard %s: shard 0 did not start phase %s: %w", s.Shard.String(), f.p.id(), err)
	}
	conn := storm.ConnOptions(netip.Addr{})
	conn.Cut = fakeservice.NewCut()
	f.cut = conn.Cut
	var err error
	if f.fleet, err = s.newFleet(f.n, f.limit, r.Endpoints(), conn, f.log); err != nil {
		return err
	}
	f.p.Clients = f.fleet.Clients()
	f.fleet.StartRenewing(f.env.Rand)
	f.lossAt, err = s.awaitLoss(ctx, f.env, f.coord, f.fleet, f.p.id(), f.n)
	if err != nil && ctx.Err() != nil {
		return err
	}
	if err != nil {
		f.env.Printf("%v: this shard misses the phase", err)
	}
	return nil
}

// dialCoord opens the client for the coordination keys: to shard 0's
// members, or through the cluster every shard attached to.
func (f *shardFleet) dialCoord(r *etcd.Etcd) error {
	if r.Cluster == nil {
		coord, err := storm.DialCoord(r.Endpoints(), countTimeout)
		if err != nil {
			return fmt.Errorf("shard %s: the coordination client: %w", f.s.Shard.String(), err)
		}
		f.coord, f.closeCoord = coord, coord.Close
		return nil
	}
	direct, err := r.Cluster.Client()
	if err != nil {
		return fmt.Errorf("shard %s: the coordination client: %w", f.s.Shard.String(), err)
	}
	f.coord, f.closeCoord = storm.NewCoord(direct, countTimeout), func() { direct.Close() }
	return nil
}

// timeline is the loss shard 0 announced, on this shard's own links
// (none when the shard missed the phase).
func (f *shardFleet) timeline(rec *history.Recorder, r *etcd.Etcd, b storm.Backoff) fault.Timeline {
	if f.lossAt.IsZero() {
		return nil
	}
	f.p.Start = rec.Offset(f.lossAt)
	cut := fault.BlackholeConns{Cut: f.cut, Targets: hostPorts(r.Endpoints())}
	return fault.Timeline{{At: f.p.Start, For: f.s.hold(f.n), Fault: linkLoss{cut: cut, fleet: f.fleet, backoff: b, rand: f.env.Rand}}}
}

// Settle waits until this shard's registrants are back or ctx ends.
func (f *shardFleet) Settle(ctx context.Context, _ *history.Recorder) error {
	if f.lossAt.IsZero() {
		return nil
	}
	f.p.Back, f.p.Last = f.fleet.Back(ctx)
	late := f.fleet.Lateness()
	f.p.Lateness = &late
	return nil
}

// Stop stops the registrants and closes the coordination client.
func (f *shardFleet) Stop() {
	if f.fleet != nil {
		f.fleet.Close()
	}
	f.closeCoord()
}

// end tells shard 0 how many registrants came back and keeps this shard's
// calls (for merge) and its cost; a missed phase keeps the cost only (the
// shard's own check says it missed a phase).
func (f *shardFleet) end(ctx context.Context, rec *history.Recorder) {
	s, p := f.s, &f.p
	defer func() { p.Cost = []storm.ProcCost{f.meter.Stop()} }()
	if f.lossAt.IsZero() {
		return
	}
	if err := f.coord.ReportBack(ctx, p.id(), s.Shard.K, p.Back, f.fleet.Size()); err != nil {
		f.env.Printf("%v", err)
	}
	p.End = rec.Offset(time.Now())
	recs := f.log.Records()
	p.Calls, p.Records, p.HealAt = storm.Summarize(recs), recs, rec.Offset(f.log.Zero())
	p.Started, p.InFlight = storm.Buckets(recs, bucketWidth, bucketCount)
	f.env.Printf("shard %s, %s: %d of %d registered again, the last %.2f s after the link returned", s.Shard.String(), p.Strategy, p.Back, f.fleet.Size(), p.Last.Seconds())
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

// hostPorts returns the host:port of every client URL.
func hostPorts(urls []string) []string {
	out := make([]string, len(urls))
	for i, ep := range urls {
		if _, addr, ok := strings.Cut(ep, "://"); ok {
			ep = addr
		}
		out[i] = ep
	}
	return out
}
