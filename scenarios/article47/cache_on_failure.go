package article47

import (
	"context"
	"flag"
	"time"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/worlds/etcd"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "cache-on-failure",
		Article: "article 47.1",
		Summary: "the whole registry dies, instances live: keep vs clear the cached list on a failed refresh",
		Help: `Setup: 3 etcd members (own processes), --instances fake instances registered on leases
(--ttl, renewed every --renew), two callers side by side at --rate req/s each, refreshing their
instance list every --refresh (deadline --refresh-timeout): "keep" keeps the old list when a
refresh fails, "clear" empties it. At --outage-at all 3 etcd members are SIGKILLed; the instances
stay up. Both callers share the refresh phase, drawn from --seed. With --real-clients (on by
default) two real clients run beside them: etcd's gRPC naming resolver (a watch on the instances'
endpoint keys) feeding gRPC's round_robin and pick_first balancers, calling each instance's gRPC
health service at --rate.

Bands: keep is all ok in every second; clear is all ok before the outage and never succeeds after
its first failure. Clear's first failure comes at its first refresh after the outage (within one
--refresh) once that refresh has failed: the gRPC client (clientv3 calls wait for a ready
connection and retry an unavailable cluster until the deadline) fails only at --refresh-timeout,
so the band is [refresh-timeout − 50 ms, refresh + refresh-timeout + one send interval + 50 ms];
with --refresh-fail-fast the refresh goes through etcd's JSON gateway over HTTP and fails on the
first refused connection (the article's client), so the band is [0, refresh + one send interval
+ 50 ms]. 50 ms is the allowance for timer and scheduling delays.

Real clients: the resolver changes addresses only on watch events and a broken watch sends none
(client/v3/naming/resolver), so the balancer keeps its last addresses: every second all ok, as keep.

Article: keep 40/0 every second; clear 40/0, 40/0, 1/39 at s2, then 0/40 — its first failure came
within 1/40 s of the outage, which only a fail-fast refresh allows (the default run shows
"differs" with that cause; --refresh-fail-fast reproduces it).`,
		Variants: []scenarios.Variant{{Name: "fail-fast", Args: []string{"--refresh-fail-fast"},
			Why: "a refresh that fails on the first refused connection, as the article's client: clear fails from its first refresh after the outage (the article's 1/39 in s2 is that refresh falling within 1/40 s of the kill)"}},
		New: func() scenarios.Config {
			return &cacheOnFailure{TrafficParams: scenarios.DefaultTrafficParams(), Real: scenarios.DefaultRealClients(),
				OutageAt: 2 * time.Second}
		},
	})
}

// cacheOnFailure is article 47.1.
type cacheOnFailure struct {
	scenarios.TrafficParams
	Real     scenarios.RealClients
	Client   scenarios.ClientParams
	OutageAt time.Duration
}

func (s *cacheOnFailure) Flags(fs *flag.FlagSet) {
	s.TrafficParams.Bind(fs)
	s.Real.Bind(fs)
	s.Client.Bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when all etcd members are SIGKILLed")
}

func (s *cacheOnFailure) Validate(c scenarios.Common) error {
	if err := s.TrafficParams.Validate(); err != nil {
		return err
	}
	if err := s.Client.Validate(); err != nil {
		return err
	}
	if s.OutageAt <= 0 || s.OutageAt >= c.Duration {
		return scenarios.Usagef("--outage-at (%s) must be within (0, --duration %s)", s.OutageAt, c.Duration)
	}
	return nil
}

// Run is the plan: both callers against the rig while every member is
// SIGKILLed at --outage-at.
func (s *cacheOnFailure) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	phase := s.Call.Phase(env)
	env.Printf("refresh phase of both callers: %s", phase.Round(time.Millisecond))
	return etcd.RunPlan(ctx, env, etcd.EtcdOptions{Instances: s.Svc.Instances, Service: s.Svc.Config()}, etcd.Plan{
		Callers: []caller.Config{
			s.Call.Config("keep", phase, caller.Policy{OnError: caller.KeepList}),
			s.Call.Config("clear", phase, caller.Policy{OnError: caller.ClearList}),
		},
		Real:    s.Real.Configs(s.Call, 0, ""),
		Exec:    s.Client.Config(s.Call),
		Gateway: s.Call.FailFast,
		Timeline: func(_ context.Context, r *etcd.Etcd) (fault.Timeline, error) {
			return fault.Timeline{{At: s.OutageAt, Fault: etcd.KillNodes{Nodes: r.Cluster.Nodes()}}}, nil
		},
	})
}

// MemberFaults says that the plan kills every member and restarts none
// (the nemesis restarts them at the end of the run).
func (s *cacheOnFailure) MemberFaults() []scenarios.MemberFault {
	return []scenarios.MemberFault{{Fault: "SIGKILL of every member", Actions: []cluster.Action{cluster.ActKill, cluster.ActStart}}}
}
