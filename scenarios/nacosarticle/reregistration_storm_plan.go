package nacosarticle

import (
	"context"
	"time"

	"sdchaos/clock"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/storm"
	"sdchaos/worlds/etcd"
)

// plan is one phase of the storm as a plan on a fresh rig, recorded into
// the run's recorder rec: the fleet f registered and steady; a timeline
// that counts the keys, cuts every registrant's link for hold, waits for
// the leases to drain and starts the members' samplers before the heal;
// the re-registration with back-off b until every registrant is back or
// --duration; then the last count, the samples and the cost.
func (s *reregistrationStorm) plan(env *scenarios.Env, f *stormFleet, rec *history.Recorder, b storm.Backoff) etcd.Plan {
	return etcd.Plan{Fleet: f, Recorder: rec,
		Timeline: func(ctx context.Context, _ *etcd.Etcd) (fault.Timeline, error) {
			return s.timeline(ctx, env, f, rec, b), nil
		},
		After: func(ctx context.Context, _ *etcd.Etcd, rec *history.Recorder) error {
			s.endPhase(ctx, env, f, rec)
			return nil
		}}
}

// timeline is the phase's timeline on rec's clock, from one renewal period
// after the registry is steady; the other shards (if any) are told when
// the loss comes.
func (s *reregistrationStorm) timeline(ctx context.Context, env *scenarios.Env, f *stormFleet, rec *history.Recorder, b storm.Backoff) fault.Timeline {
	p := &f.p
	if p.Clients = f.fleet.Clients(); f.r.Cluster.Attached() {
		p.SampledOver = sampledOverHTTP
	}
	at, hold := rec.Offset(time.Now())+s.Renew, s.hold(f.n)
	p.Start = at
	s.announceLoss(ctx, env, f, p.id(), rec.T0().Add(at))
	return fault.Timeline{
		{At: at, Probe: f.countProbe(opListed, p.id())},
		{At: at, For: hold, Fault: linkLoss{cut: f.cut, fleet: f.fleet, backoff: b, rand: env.Rand}},
		{At: at + s.TTL, Probe: f.drainProbe(p.id(), at+hold-300*time.Millisecond)},
		{At: at + hold - sampleLead, Probe: f.sampling.probe()},
	}
}

// endPhase ends the phase once the fleet settled: the members sample the
// last calls too, the other shards (if any) report back, the keys are
// counted, and the samples, the cost and the registrants' calls are kept.
func (s *reregistrationStorm) endPhase(ctx context.Context, env *scenarios.Env, f *stormFleet, rec *history.Recorder) {
	p := &f.p
	_ = clock.SleepUntil(ctx, f.log.Zero().Add(p.Last+sampleTail))
	s.awaitShards(ctx, env, f, p.id())
	rig.Op(ctx, rec, opKeysAfter, p.id(), countTimeout, f.count)
	p.Members, p.MembersHTTP = f.sampling.stop()
	p.End = rec.Offset(time.Now())
	p.Cost = f.cost(ctx, env, p.Members)
	if rc := f.sampling.readers(); rc.N > 0 {
		p.Cost = append(p.Cost, storm.ProcCost{Name: s.Shard.Name() + " (metrics readers)", CPU: rc.CPU, PeakRSS: rc.PeakRSS})
	}
	recs := f.log.Records()
	p.Calls = storm.Summarize(recs)
	p.Started, p.InFlight = storm.Buckets(recs, bucketWidth, bucketCount)
	if s.Shard.Sharded() {
		p.Records, p.HealAt = recs, rec.Offset(f.log.Zero())
	}
	env.Printf("%s: %d of %d registered again, the last %.2f s after the link returned", p.Strategy, p.Back, f.fleet.Size(), p.Last.Seconds())
}

// plan is a shard ≥ 1's side of a phase as a plan, recorded into the run's
// recorder rec: its registrants registered until shard 0 announces the
// loss, the loss on its own links, the re-registration with back-off b,
// then a word to shard 0.
func (f *shardFleet) plan(rec *history.Recorder, b storm.Backoff) etcd.Plan {
	return etcd.Plan{Fleet: f, Recorder: rec,
		Timeline: func(_ context.Context, r *etcd.Etcd) (fault.Timeline, error) {
			return f.timeline(rec, r, b), nil
		},
		After: func(ctx context.Context, _ *etcd.Etcd, rec *history.Recorder) error {
			f.end(ctx, rec)
			return nil
		}}
}
