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
		Name:    "passive-ejection",
		Article: "article 47.2",
		Summary: "an instance dies while the registry is down: no ejection vs local ejection after a failed call",
		Help: `Setup: as cache-on-failure; both callers keep their list on a failed refresh. All 3 etcd
members are SIGKILLed at --outage-at; one instance (drawn from --seed) crashes at --crash-at
(connection refused, no more renewals). "none" keeps sending to it round-robin; "eject" skips an
instance locally for --eject after a failed call to it.

Bands (round-robin over --instances, nobody removes the dead instance while the registry is down):
no call of either caller that ended before the crash fails; none fails, in every whole second
after it, rate/instances of its requests rounded down or up (13–14 at 40/s), ± the picks that can
cross each end of the second (a call picks its instance when it starts, up to 100 ms late in a
valid run: calls due that close can swap, ⌈⌈rate × 100 ms⌉ / instances⌉ picks of the dead one:
9–18 at 40/s), and in total 1/instances of the requests that did not end before the crash
(rounded down or up, ±2 for sends at the crash's instant); eject fails
at least once (the call that ejects) and at most twice per ejection period after the crash.
Real clients (--real-clients, on by default: etcd's naming resolver + round_robin / pick_first
over the instances' gRPC health service): with the registry down the resolver keeps its addresses,
but gRPC sees the crashed instance's connection close: only calls in flight on it (or picked
before the transport notices) fail, because round_robin picks only READY subchannels and
pick_first moves to the next address when its connection is refused: at most 3 failures after
the crash, none before: as eject.
Article: none 80 of 400 (13–14 per second), eject 1 of 400.`,
		New: func() scenarios.Config {
			return &passiveEjection{TrafficParams: scenarios.DefaultTrafficParams(), Real: scenarios.DefaultRealClients(),
				OutageAt: time.Second, CrashAt: 4 * time.Second, Eject: 30 * time.Second}
		},
	})
}

// passiveEjection is article 47.2.
type passiveEjection struct {
	scenarios.TrafficParams
	Real              scenarios.RealClients
	Client            scenarios.ClientParams
	OutageAt, CrashAt time.Duration
	Eject             time.Duration
}

func (s *passiveEjection) Flags(fs *flag.FlagSet) {
	s.TrafficParams.Bind(fs)
	s.Real.Bind(fs)
	s.Client.Bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when all etcd members are SIGKILLed")
	fs.DurationVar(&s.CrashAt, "crash-at", s.CrashAt, "when one instance crashes")
	fs.DurationVar(&s.Eject, "eject", s.Eject, "how long the eject caller skips an instance after a failed call")
}

func (s *passiveEjection) Validate(c scenarios.Common) error {
	if err := s.TrafficParams.Validate(); err != nil {
		return err
	}
	if err := s.Client.Validate(); err != nil {
		return err
	}
	switch {
	case s.Svc.Instances < 2:
		return scenarios.Usagef("--instances (%d) must be at least 2 (one crashes, one must be left)", s.Svc.Instances)
	case s.OutageAt < 0 || s.OutageAt >= c.Duration:
		return scenarios.Usagef("--outage-at (%s) must be within [0, --duration %s)", s.OutageAt, c.Duration)
	case s.CrashAt <= 0 || s.CrashAt >= c.Duration:
		return scenarios.Usagef("--crash-at (%s) must be within (0, --duration %s)", s.CrashAt, c.Duration)
	case s.Eject <= 0:
		return scenarios.Usagef("--eject (%s) must be positive", s.Eject)
	}
	return nil
}

// Run is the plan: both callers; the registry dies, then an instance crashes.
func (s *passiveEjection) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	phase := s.Call.Phase(env)
	victim := env.Rand.IntN(s.Svc.Instances)
	return etcd.RunPlan(ctx, env, etcd.EtcdOptions{Instances: s.Svc.Instances, Service: s.Svc.Config()}, etcd.Plan{
		Callers: []caller.Config{
			s.Call.Config("none", phase, caller.Policy{OnError: caller.KeepList}),
			s.Call.Config("eject", phase, caller.Policy{OnError: caller.KeepList, Eject: s.Eject}),
		},
		Real:    s.Real.Configs(s.Call, 0, ""),
		Exec:    s.Client.Config(s.Call),
		Gateway: s.Call.FailFast,
		Timeline: func(_ context.Context, r *etcd.Etcd) (fault.Timeline, error) {
			return fault.Timeline{
				{At: s.OutageAt, Fault: etcd.KillNodes{Nodes: r.Cluster.Nodes()}},
				{At: s.CrashAt, Fault: fault.CrashInstance{Instance: r.Group.Instances[victim]}},
			}, nil
		},
	})
}

// MemberFaults says that the plan kills every member and restarts none
// (the nemesis restarts them at the end of the run).
func (s *passiveEjection) MemberFaults() []scenarios.MemberFault {
	return []scenarios.MemberFault{{Fault: "SIGKILL of every member", Actions: []cluster.Action{cluster.ActKill, cluster.ActStart}}}
}
