package etcd

import (
	"context"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
)

// Name is the world's --registry value.
const Name experiment.Registry = "etcd"

func init() { rig.RegisterDefaultRegistry(etcdRegistry{}) }

// etcdRegistry runs experiments written as data on the etcd world: a real
// 3-member etcd cluster (each member its own process), instances
// registered on leases, policy callers reading through clientv3, and the
// real clients etcd's naming resolver feeds.
type etcdRegistry struct{}

// The real clients of the etcd world.
const (
	// EtcdRoundRobin is etcd's naming resolver feeding gRPC's round_robin.
	EtcdRoundRobin = "grpc-round-robin"
	// EtcdPickFirst is etcd's naming resolver feeding gRPC's pick_first.
	EtcdPickFirst = "grpc-pick-first"
)

// Name returns "etcd".
func (etcdRegistry) Name() experiment.Registry { return Name }

// Describe names the server.
func (etcdRegistry) Describe() string {
	return "etcd " + etcdVersion() + ", 3 members (each its own process), instances on leases"
}

// Clients are etcd's naming resolver with two gRPC balancers.
func (etcdRegistry) Clients() []rig.ClientInfo {
	return []rig.ClientInfo{
		{Name: EtcdRoundRobin, What: "etcd's gRPC naming resolver (a watch on the endpoint keys) feeding gRPC's round_robin balancer"},
		{Name: EtcdPickFirst, What: "etcd's gRPC naming resolver feeding gRPC's pick_first balancer"},
	}
}

// Can accepts every registry-neutral fault and probe but the dropped packets (how: drop,
// member-unreachable: RefusePackets); it needs whole-second
// lease ttls of at least fakeservice.MinTTL and one user's program at most.
func (r etcdRegistry) Can(x experiment.Experiment) error {
	if err := rig.CheckClients(r, x); err != nil {
		return err
	}
	if err := rig.RefusePackets(r.Name(), x); err != nil {
		return err
	}
	if err := etcdService(x).Validate(); err != nil {
		return rig.Cannotf("etcd: instances.ttl: %v", err)
	}
	execs := 0
	for _, c := range x.Callers {
		if c.Kind == experiment.ExecClient {
			execs++
		}
	}
	if execs > 1 {
		return rig.Cannotf("etcd runs one user's program per run (the experiment has %d)", execs)
	}
	return nil
}

// etcdService is the instances' configuration: the experiment's ttl (20 s
// by default), renewed every tenth of it.
func etcdService(x experiment.Experiment) fakeservice.Config {
	c := fakeservice.DefaultConfig()
	if x.Instances.TTL > 0 {
		c.TTL = x.Instances.TTL.D()
		c.Renew = c.TTL / 10
	}
	return c
}

// World compiles x into an etcd plan: its callers, its instances, and a
// timeline of fault values on the started rig.
func (r etcdRegistry) World(env *rig.Env, x experiment.Experiment) (rig.World, error) {
	if err := r.Can(x); err != nil {
		return nil, err
	}
	sink := &rig.Sink{}
	o := EtcdOptions{Instances: x.Instances.Count, Service: etcdService(x), Proxied: rig.NeedsLinks(x)}
	o.Service.OnRegister = sink.Registered
	if x.Instances.Spread > 0 {
		o.Service.Rejoin = rig.NewDraws(env, x.Instances.Spread.D()).Next
	}
	phase := env.CallerPhase()
	plan := Plan{Timeline: func(ctx context.Context, rig *Etcd) (fault.Timeline, error) { return etcdTimeline(ctx, env, rig, x) },
		Traffic: listedTraffic}
	for _, c := range x.Callers {
		switch c.Kind {
		case experiment.PolicyCaller:
			plan.Callers = append(plan.Callers, rig.PolicyCaller(c, phase))
		case experiment.RealClient:
			b := caller.RoundRobin
			if c.Client == EtcdPickFirst {
				b = caller.PickFirst
			}
			plan.Real = append(plan.Real, caller.GRPCConfig{Name: c.Name, Rate: rig.RateOf(c), Balancer: b, CallTimeout: rig.CallTimeout})
		case experiment.ExecClient:
			plan.Exec = &rig.ExecConfig{Name: c.Name, Argv: c.Command, Rate: rig.RateOf(c), CallTimeout: rig.CallTimeout}
		}
	}
	env.Duration = x.Duration.D()
	return &sinkWorld{PlanWorld: NewPlanWorld(env, o, plan), sink: sink}, nil
}

// sinkWorld is the etcd world of an experiment: its instances' registrations
// are recorded once the recorder exists.
type sinkWorld struct {
	*PlanWorld
	sink *rig.Sink
}

// Recorder returns the world's recorder and points the sink at it.
func (w *sinkWorld) Recorder(ctx context.Context) (*history.Recorder, time.Duration) {
	rec, d := w.PlanWorld.Recorder(ctx)
	w.sink.Set(rec)
	return rec, d
}

// listedTraffic samples how many instances etcd lists, for the whole run.
func listedTraffic(r *Etcd) ([]caller.Traffic, func(), error) {
	s, err := newListedSampler(r)
	if err != nil {
		return nil, nil, err
	}
	return []caller.Traffic{s}, s.Close, nil
}

// etcdTimeline turns x's steps into fault values on the started rig.
func etcdTimeline(ctx context.Context, env *rig.Env, r *Etcd, x experiment.Experiment) (fault.Timeline, error) {
	var tl fault.Timeline
	for i, s := range x.Timeline {
		st := fault.Step{At: s.At.D(), For: s.For.D(), Origin: i + 1}
		var err error
		if s.Probe != "" {
			st.Probe = etcdMembersProbe(r)
		} else {
			st.Fault, err = etcdFault(ctx, env, r, s)
		}
		if err != nil {
			return nil, fmt.Errorf("timeline[%d] (%s): %w", i, s.Fault, err)
		}
		tl = append(tl, st)
	}
	return tl, nil
}

// etcdFault is the fault value of one registry-neutral step on etcd.
func etcdFault(ctx context.Context, env *rig.Env, r *Etcd, s experiment.Step) (fault.Fault, error) {
	switch s.Fault {
	case experiment.Unreachable:
		if s.HowOf() == experiment.Kill {
			return KillNodes{Nodes: r.Cluster.Nodes()}, nil
		}
		return fault.Blackhole{Proxies: r.Proxies}, nil
	case experiment.CrashInstance:
		ins := r.Group.Instances
		return fault.CrashInstance{Instance: ins[env.Rand.IntN(len(ins))]}, nil
	case experiment.QuorumLoss:
		leader, err := r.Cluster.WaitLeader(ctx)
		if err != nil {
			return nil, err
		}
		return KillNodes{Nodes: r.Cluster.MajorityWith(leader)}, nil
	case experiment.CutOffMember:
		n, err := r.Cluster.LeaderOrFollower(ctx, s.WhichOf() == experiment.Leader)
		if err != nil {
			return nil, err
		}
		return PartitionPeer{Cluster: r.Cluster, Node: n}, nil
	}
	return nil, rig.Cannotf("etcd cannot make %q", s.Fault)
}

// Rules are etcd's rules for x's instances on the harness's cluster.
func (etcdRegistry) Rules(x experiment.Experiment) experiment.Rules {
	svc := etcdService(x)
	return Rules{Config: cluster.DefaultConfig(), TTL: svc.TTL, Renew: svc.Renew}
}
