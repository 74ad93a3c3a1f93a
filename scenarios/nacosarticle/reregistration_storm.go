package nacosarticle

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/storm"
	"sdchaos/worlds/etcd"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "reregistration-storm",
		Article: "Nacos article",
		Summary: "N registrants lose the registry longer than their ttl and re-register when it returns: all at once vs jittered back-off",
		Help: `For each size in --instances and each strategy: a fresh 3-member etcd cluster and N
registrants, each with its own gRPC connection to a member (as pods would have) unless the
process's open-file limit forbids it (then the run says how many share one); a registrant speaks
etcd's gRPC lease and KV API directly (no full client), so the harness costs little next to the
registry (the run's "cost by process" table: CPU time and peak RSS of the harness and each member).
The link loss is a blackhole held in the registrants' own connections (no proxy on the path: the
registry sees its connections go silent and gets what was sent at the heal). With --net private
the registrants dial from 127.0.0.200 and the link loss drops every packet between that address
and the members' client ports instead. Each registrant
holds a key on a lease (--ttl) renewed every --renew. Once the registry lists all N keys (at most
30 s + N/500 s), a timeline: one renewal period later every client link is blackholed and the
registrants notice (they stop renewing); the links stay down for ttl + 2 s + N / --revoke-rate
(the leader revokes at most 1000 expired leases a second, leaseRevokeRate, 16 at a time through
raft; --revoke-rate is the slowest rate assumed), then heal, and the registrants re-register
(grant + put, each call with a --call-timeout deadline):
  immediate  all at the moment the link returns (reconnect-driven clients); a failed attempt k
             is retried after min(k, 50) × 100 ms, without jitter (Nacos' reconnect loop)
  jitter     attempt k waits uniform [0, min(--backoff-cap, --backoff-base × 2^k)) (full jitter)
until all are back or --duration (default 60s) passes. From 1 s before the heal each member
samples its own Prometheus metrics every 100 ms inside its process (so an overloaded loopback
does not delay the reading; the members of a cluster the harness did not start, --endpoints, are
read over their /metrics by the harness instead): gRPC calls started and answered (grpc_server_started_total,
grpc_server_handled_total by code), how long it took to serve them
(etcd_server_request_duration_seconds), leader changes and leader presence
(etcd_server_leader_changes_seen_total, etcd_server_has_leader). The registrants' side is
measured too: calls started and in flight per 100 ms, latency, errors, timeouts, the time until
all N are back.

Checks, per size, on what etcd received and whether it fell over: the jitter storm's peak of
calls the members received in 100 ms is at most 0.9 × the immediate one's (the remedy's claim:
jitter lowers the spike; unsaturated, first attempts spread over --backoff-base predict about
100 ms / base of the synchronized peak; a ratio within 10 % of 1 is no lowering); jitter brings
back at least as many registrants, has no more failed calls (registrants' side) and the registry
answers no more calls with an error (its own count) than immediate; under the jitter storm the
registry did not fall over (no leader change, no member without a leader or lost, a count
answered within 5 s after the phase). A size where jitter does worse is outside. A size is
invalid when the world was not as planned: fewer than N keys listed at a loss (the steady
renewals alone overloaded the registry), keys still listed at a heal (the leases had not
drained), or a member without samples at the heal. Whether the immediate storm knocked the
registry over is reported, not judged: this machine's two cores also run every client.
Sharded: --shard k/n with one --start-at runs the fleet in n processes (machines, pods): shard 0
starts the members and the probes and prints their client URLs; shards 1…n−1 get them with
--shard-endpoints (or every shard gets the same --endpoints of a cluster the harness did not
start), and cut and heal their own links at the instants shard 0 writes on the members (keys under
/sdchaos/storm-shards/). Each shard's own report is not judged; 'experiments merge DIR…' judges
the shards' --out histories as one run.
Article: hundreds of pods re-registered at once and knocked the recovering registry over again;
remedy: back-off with jitter.`,
		Variants: []scenarios.Variant{{Name: "sizes", Args: []string{"--instances", "1000,2000,5000"},
			Why: "the storm at three sizes: where etcd on a 2-core machine starts to hurt (5000), and whether jitter still helps; beyond 5000 one such machine measures itself (docs/scale-out.md: shards)"}},
		New: func() scenarios.Config {
			return &reregistrationStorm{Sizes: scenarios.IntList{1000}, TTL: 10 * time.Second, Renew: 3 * time.Second,
				CallTimeout: 5 * time.Second, Base: time.Second, Cap: 10 * time.Second, RevokeRate: 200}
		},
	})
}

// reregistrationStorm is the Nacos article's re-registration storm.
type reregistrationStorm struct {
	Sizes                   scenarios.IntList
	TTL, Renew, CallTimeout time.Duration
	Base, Cap               time.Duration
	// RevokeRate is the slowest lease revocation rate assumed (per second):
	// the links stay down ttl + 2 s + N / RevokeRate.
	RevokeRate float64
	// Shard is this process's slice of the fleet (--shard k/n); StartAt
	// the shards' common time zero; ShardEndpoints the members' client
	// URLs for shards ≥ 1 (shard 0 starts the members).
	Shard          storm.Shard
	StartAt        scenarios.TimeFlag
	ShardEndpoints scenarios.URLsFlag
	// alsoHTTP reads the members over /metrics beside their own samples
	// (stormPhase.MembersHTTP), for the test that compares the two.
	alsoHTTP bool
}

// Defaults makes --duration (the bound of each re-registration phase) 60s.
func (s *reregistrationStorm) Defaults(c *scenarios.Common) { c.Duration = time.Minute }

func (s *reregistrationStorm) Flags(fs *flag.FlagSet) {
	fs.Var(&s.Sizes, "instances", "registrants, or a comma-separated list of sizes (one row each): 1000,5000,20000")
	fs.DurationVar(&s.TTL, "ttl", s.TTL, "lease ttl of each registrant (whole seconds, ≥ 2s)")
	fs.DurationVar(&s.Renew, "renew", s.Renew, "renewal interval while the link is up")
	fs.DurationVar(&s.CallTimeout, "call-timeout", s.CallTimeout, "deadline of each registry call")
	fs.DurationVar(&s.Base, "backoff-base", s.Base, "jitter strategy: first window of the back-off (at least 200ms: two of the members' 100 ms samples)")
	fs.DurationVar(&s.Cap, "backoff-cap", s.Cap, "jitter strategy: largest window of the back-off")
	fs.Float64Var(&s.RevokeRate, "revoke-rate", s.RevokeRate,
		"slowest lease revocations per second assumed while the links are down (they stay down ttl + 2s + N / rate)")
	fs.Var(&s.Shard, "shard", "`k/n`: drive only registrants i with i mod n = k (n processes, one fleet; shard 0 starts the members and the timeline, merge the histories with 'experiments merge')")
	fs.Var(&s.StartAt, "start-at", "RFC 3339 `time` every shard waits for and takes as the timeline's zero (needed with --shard)")
	fs.Var(&s.ShardEndpoints, "shard-endpoints", "shards 1…n−1: the client `URLs` of the members shard 0 started (it prints them)")
}

func (s *reregistrationStorm) Validate(c scenarios.Common) error {
	switch {
	case len(s.Sizes) == 0:
		return scenarios.Usagef("--instances: give at least one size")
	case s.TTL < 2*time.Second || s.TTL%time.Second != 0:
		return scenarios.Usagef("--ttl (%s) must be whole seconds, at least 2s", s.TTL)
	case s.Renew <= 0 || s.Renew >= s.TTL:
		return scenarios.Usagef("--renew (%s) must be positive and shorter than --ttl (%s)", s.Renew, s.TTL)
	case s.CallTimeout <= 0:
		return scenarios.Usagef("--call-timeout (%s) must be positive", s.CallTimeout)
	case s.Base <= 0 || s.Cap < s.Base:
		return scenarios.Usagef("--backoff-base (%s) must be positive and at most --backoff-cap (%s)", s.Base, s.Cap)
	case s.Base < samplesPerWindow*sampleEvery:
		return scenarios.Usagef("--backoff-base (%s) must be at least %s: the members sample their metrics every %s, and a first window holding fewer than %d samples cannot be told from a spike",
			s.Base, samplesPerWindow*sampleEvery, sampleEvery, samplesPerWindow)
	case s.RevokeRate <= 0 || s.RevokeRate > 1000:
		return scenarios.Usagef("--revoke-rate (%g) must be within (0, 1000]: etcd revokes at most 1000 leases a second", s.RevokeRate)
	}
	for _, n := range s.Sizes {
		if n < 1 || n > 100000 {
			return scenarios.Usagef("--instances: size %d must be within 1–100000", n)
		}
	}
	if s.Shard.Sharded() && c.Net == rig.Private {
		return scenarios.Usagef("--shard with --net private: the shards' registrants would sit in other namespaces than the members; shard on the host's loopback")
	}
	return s.validateShard(c)
}

// strategies are the two re-registration strategies, in run order.
func (s *reregistrationStorm) strategies() []storm.Backoff {
	return []storm.Backoff{storm.Immediate{}, storm.FullJitter{Base: s.Base, Cap: s.Cap}}
}

// strategyName names a back-off in tables, metrics and the recorded data.
func strategyName(b storm.Backoff) string {
	if _, ok := b.(storm.FullJitter); ok {
		return "jitter"
	}
	return "immediate"
}

// hold is how long the links stay down at size n: every lease expires
// within ttl of the loss (its last renewal came at most --renew before);
// the leader then revokes them, at most 1000 a second (leaseRevokeRate), in
// practice as fast as its raft log applies them (16 at a time,
// maxPendingRevokes): --revoke-rate is the slowest rate assumed; 2 s more
// for the 500 ms expiry check. Keys still listed at the heal make the size
// invalid, never a pass.
func (s *reregistrationStorm) hold(n int) time.Duration {
	return s.TTL + 2*time.Second + time.Duration(float64(n)/s.RevokeRate*float64(time.Second)).Round(time.Second)
}

// Run runs, for each size and strategy, one phase: a plan that etcd.RunPlan
// runs on a fresh cluster with a fresh fleet (on shard ≥ 1 this shard's
// slice of the fleet on shard 0's members), every phase recorded into the
// run's one recorder; the registrants' and the members' measurements are
// the history's data.
func (s *reregistrationStorm) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	if err := s.checkTarget(env.Attach != nil); err != nil {
		return nil, err
	}
	limit := storm.RaiseFileLimit()
	rec, err := s.recorder(ctx, env)
	if err != nil {
		return nil, err
	}
	data := stormRecord{T0: rec.T0().UnixNano(), Settle: env.Duration}
	for _, n := range s.Sizes {
		phases, err := s.runSize(ctx, env, rec, n, limit)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", n, err)
		}
		data.Phases = append(data.Phases, phases...)
	}
	h := rec.History()
	h.Timeline = rec.Offset(time.Now())
	if err := h.SetData(data); err != nil {
		return nil, err
	}
	return &h, nil
}

// runSize runs both strategies at size n, each on a fresh cluster and
// fleet, so neither storm starts from what the other left behind.
func (s *reregistrationStorm) runSize(ctx context.Context, env *scenarios.Env, rec *history.Recorder, n int, limit uint64) ([]stormPhase, error) {
	var phases []stormPhase
	for _, b := range s.strategies() {
		p, err := s.runStrategy(ctx, env, rec, n, limit, b)
		if err != nil {
			return nil, fmt.Errorf("%s phase: %w", strategyName(b), err)
		}
		phases = append(phases, p)
	}
	return phases, nil
}

// runStrategy runs strategy b's phase at size n as a plan: on a fresh
// cluster, or on shard ≥ 1 this shard's slice of the fleet on shard 0's
// members (or the cluster every shard attached to).
func (s *reregistrationStorm) runStrategy(ctx context.Context, env *scenarios.Env, rec *history.Recorder, n int, limit uint64, b storm.Backoff) (stormPhase, error) {
	if s.Shard.K >= 1 {
		f := s.newShardFleet(env, n, limit, b)
		_, err := etcd.RunPlan(ctx, env, s.shardOptions(env), f.plan(rec, b))
		return f.p, err
	}
	f := s.newStormFleet(env, n, limit, b)
	_, err := etcd.RunPlan(ctx, env, etcd.EtcdOptions{Namespace: s.namespace(env)}, s.plan(env, f, rec, b))
	return f.p, err
}
