package zookeeper

import (
	"context"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/rig"
)

// Name is the world's --registry value.
const Name experiment.Registry = "zookeeper"

func init() { rig.RegisterRegistry(zkRegistry{}) }

// zkRegistry runs experiments written as data on the ZooKeeper world: a
// real three-member ensemble (each member its own JVM), instances as
// ephemeral nodes in Curator's layout with their session as the lease,
// policy callers reading that layout through go-zookeeper, and the real
// Java clients (Curator's ServiceCache, Spring Cloud Zookeeper).
type zkRegistry struct{}

// Name returns "zookeeper".
func (zkRegistry) Name() experiment.Registry { return Name }

// Describe names the server.
func (zkRegistry) Describe() string {
	return "ZooKeeper " + ServerVersion + ", 3 members (each its own JVM), instances as ephemeral nodes in Curator's layout (the session is the lease)"
}

// Clients are Curator's ServiceCache and Spring Cloud Zookeeper.
func (zkRegistry) Clients() []rig.ClientInfo {
	return []rig.ClientInfo{
		{Name: ClientCurator, What: "Curator " + CuratorVersion + " ServiceDiscovery with a ServiceCache and RoundRobinStrategy (a JVM; session 60 s asked, ExponentialBackoffRetry(1 s, 3))"},
		{Name: ClientSpring, What: "Spring Cloud Zookeeper " + SpringCloudZookeeperVersion + " discovery with Spring Cloud LoadBalancer at its defaults (a JVM; its 35 s cache)"},
	}
}

// Can accepts every registry-neutral fault and probe but the dropped packets (how: drop,
// member-unreachable: RefusePackets). The instances' ttl
// must be a session timeout the members grant. A user's program (kind exec) runs (execclient.go).
func (r zkRegistry) Can(x experiment.Experiment) error {
	if err := rig.CheckClients(r, x); err != nil {
		return err
	}
	if err := rig.RefusePackets(r.Name(), x); err != nil {
		return err
	}
	lo, hi := DefaultConfig().SessionRange()
	switch ttl := x.Instances.TTL.D(); {
	case ttl != 0 && (ttl < lo || ttl > hi):
		return rig.Cannotf("zookeeper: instances.ttl: %s is not a session timeout the members grant (%s–%s: 2 and 20 ticks, QuorumPeerConfig.java:470-471)", ttl, lo, hi)
	}
	return nil
}

// CheckTarget parses a connect string, refusing hosts off the loopback
// range unless t.AllowRemote.
func (zkRegistry) CheckTarget(t rig.Target) error {
	if _, _, err := ParseConnectString(t.Address, t.AllowRemote); err != nil {
		return rig.Cannotf("zookeeper: %v", err)
	}
	return nil
}

// CanAttached refuses what needs the members' processes or their peer
// links: an ensemble the harness did not start is only reached through
// its client ports.
func (r zkRegistry) CanAttached(x experiment.Experiment) error {
	for i, s := range x.Timeline {
		if s.Fault == experiment.QuorumLoss || s.Fault == experiment.CutOffMember || (s.Fault == experiment.Unreachable && s.HowOf() == experiment.Kill) {
			return rig.Cannotf("zookeeper: timeline[%d]: %s (%s) acts on the members' processes or peer links, which an attached ensemble does not give", i, s.Fault, s.HowOf())
		}
	}
	return nil
}

// session returns the instances' session timeout.
func zkSession(x experiment.Experiment) time.Duration {
	if x.Instances.TTL > 0 {
		return x.Instances.TTL.D()
	}
	return ArticleSessionTimeout
}

// World compiles x into a ZooKeeper plan.
func (r zkRegistry) World(env *rig.Env, x experiment.Experiment) (rig.World, error) {
	if err := r.Can(x); err != nil {
		return nil, err
	}
	sink := &rig.Sink{}
	o := ZooKeeperOptions{Instances: x.Instances.Count, Session: zkSession(x), Ensemble: DefaultConfig(), OnRegister: sink.Registered}
	if x.Instances.Spread > 0 {
		o.Rejoin = rig.NewDraws(env, x.Instances.Spread.D()).Next
	}
	o.Ensemble.ClientLinks = rig.NeedsLinks(x)
	o.Ensemble.PeerLinks = rig.HasFault(x, experiment.CutOffMember)
	if env.Attach != nil {
		if err := r.CanAttached(x); err != nil {
			return nil, err
		}
		o.Attach = &AttachConfig{ConnectString: env.Attach.Address, AllowRemote: env.Attach.AllowRemote, ClientLinks: o.Ensemble.ClientLinks}
	}
	phase := env.CallerPhase()
	plan := ZooKeeperPlan{CallTimeout: rig.CallTimeout,
		Timeline: func(ctx context.Context, z *ZooKeeper) (fault.Timeline, error) { return zkTimeline(ctx, env, z, x) }}
	var execs []rig.ExecConfig
	for _, c := range x.Callers {
		switch c.Kind {
		case experiment.PolicyCaller:
			plan.Callers = append(plan.Callers, rig.PolicyCaller(c, phase))
		case experiment.RealClient:
			mode := Curator
			if c.Client == ClientSpring {
				mode = Spring
			}
			plan.Java = append(plan.Java, JavaClient{Name: c.Name, Mode: mode, Rate: rig.RateOf(c)})
		case experiment.ExecClient:
			execs = append(execs, rig.ExecConfig{Name: c.Name, Argv: c.Command, Rate: rig.RateOf(c), CallTimeout: rig.CallTimeout})
		}
	}
	plan.Traffic = zkTrafficWith(env, execs)
	env.Duration = x.Duration.D()
	return &zkSinkWorld{ZooKeeperWorld: NewZooKeeperWorld(env, o, plan), sink: sink}, nil
}

// zkTimeline turns x's steps into fault values on the started world.
func zkTimeline(ctx context.Context, env *rig.Env, z *ZooKeeper, x experiment.Experiment) (fault.Timeline, error) {
	var tl fault.Timeline
	var probes []*zkMemberProbe
	for i, s := range x.Timeline {
		st := fault.Step{At: s.At.D(), For: s.For.D(), Origin: i + 1}
		var err error
		if s.Probe != "" {
			if probes == nil {
				if probes, err = z.newMemberProbes(ctx); err != nil {
					return nil, fmt.Errorf("timeline[%d] (probe %s): %w", i, s.Probe, err)
				}
			}
			st.Probe = zkMembersProbe(probes)
		} else if st.Fault, err = zkFault(ctx, env, z, s); err != nil {
			return nil, fmt.Errorf("timeline[%d] (%s): %w", i, s.Fault, err)
		}
		tl = append(tl, st)
	}
	return tl, nil
}

// zkFault is the fault value of one registry-neutral step on ZooKeeper.
func zkFault(ctx context.Context, env *rig.Env, z *ZooKeeper, s experiment.Step) (fault.Fault, error) {
	e := z.Ensemble
	switch s.Fault {
	case experiment.Unreachable:
		if s.HowOf() == experiment.Kill {
			return KillZooKeeper{Members: e.Members()}, nil
		}
		return BlackholeZooKeeperClients{Members: memberNames(e.Members()), Links: e.ClientLinks()}, nil
	case experiment.CrashInstance:
		return CrashZooKeeperInstance{Instance: z.Instances[env.Rand.IntN(len(z.Instances))]}, nil
	case experiment.QuorumLoss:
		leader, err := zkLeader(ctx, e)
		if err != nil {
			return nil, err
		}
		return KillZooKeeper{Members: zkMajorityWith(e.Members(), leader)}, nil
	case experiment.CutOffMember:
		m, err := zkMemberOf(ctx, e, s.WhichOf())
		if err != nil {
			return nil, err
		}
		return CutZooKeeperMember{Member: m.Name, Links: e.PeerLinksOf(m)}, nil
	}
	return nil, rig.Cannotf("zookeeper cannot make %q", s.Fault)
}

// zkLeader waits (up to 30 s) for the member that leads.
func zkLeader(ctx context.Context, e *Ensemble) (*Member, error) {
	return e.WaitQuorum(ctx, 30*time.Second)
}

// zkMajorityWith returns a majority of the members that includes leader.
func zkMajorityWith(ms []*Member, leader *Member) []*Member {
	out := []*Member{leader}
	for _, m := range ms {
		if len(out) == len(ms)/2+1 {
			break
		}
		if m != leader {
			out = append(out, m)
		}
	}
	return out
}

// zkMemberOf returns the leader, or a member that follows.
func zkMemberOf(ctx context.Context, e *Ensemble, which experiment.Which) (*Member, error) {
	leader, err := zkLeader(ctx, e)
	if err != nil || which == experiment.Leader {
		return leader, err
	}
	for _, m := range e.Members() {
		if m != leader {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no member besides the leader %s", leader.Name)
}

// memberNames returns the members' names.
func memberNames(ms []*Member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// Rules are ZooKeeper's rules for x's instances on the harness's ensemble.
func (zkRegistry) Rules(x experiment.Experiment) experiment.Rules {
	cfg := DefaultConfig()
	lo, hi := cfg.SessionRange()
	r := Rules{Config: cfg, Session: NegotiateSessionTimeout(zkSession(x), cfg.TickTime, lo, hi)}
	for _, s := range x.Timeline {
		if s.Fault == experiment.CutOffMember {
			r.Which = s.WhichOf()
		}
	}
	return r
}

var _ caller.Source = zkSource{}
