package nacos

import (
	"fmt"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// Name is the world's --registry value.
const Name experiment.Registry = "nacos"

func init() { rig.RegisterRegistry(nacosRegistry{}) }

// nacosRegistry runs experiments written as data on the real Nacos world: one real Nacos
// server (a JVM, standalone) — or, for an experiment with a member fault or a members probe, a
// cluster of three (each a JVM, naming only) —, instances registered ephemeral through
// nacos-sdk-go, each on its own gRPC connection (its lease) behind its own link, policy callers
// reading the client open API through links of their own, and the world's real clients (Java
// and Go) as callers.
type nacosRegistry struct{}

// The real clients of the Nacos world (nacosreal's callers at their defaults).
const (
	// NacosSpring is Spring Cloud Alibaba Nacos discovery with Spring Cloud LoadBalancer.
	NacosSpring = "spring"
	// NacosPlain is the official Java client (nacos-client) alone.
	NacosPlain = "plain"
	// NacosGoSDK is nacos-sdk-go at its defaults.
	NacosGoSDK = "go-sdk"
)

// nacosSettle is the least time between the server listing every instance and the run's zero:
// two health-check looks of each instance's SDK, after which each connection is silent at most
// nacosreal.ClientKeepAlive (the rules' SilentAtCut).
const nacosSettle = 2 * ClientKeepAlive

// Name returns "nacos".
func (nacosRegistry) Name() experiment.Registry { return Name }

// Describe names the server, and the cluster a member experiment runs on.
func (nacosRegistry) Describe() string {
	return "Nacos, 1 real server (a JVM, standalone; its version in the run's meta) — 3 members (each a JVM, naming only) when the timeline has " +
		"quorum-loss, cut-off-member, member-unreachable, packets dropped (how: drop) or a members probe —, instances ephemeral through nacos-sdk-go over gRPC"
}

// Clients are the world's real clients at their defaults.
func (nacosRegistry) Clients() []rig.ClientInfo {
	return []rig.ClientInfo{
		{Name: NacosSpring, What: "Spring Cloud Alibaba Nacos discovery + Spring Cloud LoadBalancer over nacos-client, at their defaults (a JVM)"},
		{Name: NacosPlain, What: "the official Java client nacos-client alone, at its defaults (a JVM)"},
		{Name: NacosGoSDK, What: "nacos-sdk-go at its defaults (disk cache at start, an empty list ignored)"},
	}
}

// Can refuses, in one line, what the world cannot make: a ttl (Nacos fixes when a silent
// instance leaves), a real client's caller not named after its client or at
// another rate than the others, a killed standalone server, the leader cut off or made
// unreachable (Distro has none), registry-unreachable by blackhole in a run on the cluster, and a
// spread beside dropped packets (the drop acts on the members' ports, not on each instance's
// link). Packets dropped (how: drop) need --net private: World refuses them on loopback.
func (r nacosRegistry) Can(x experiment.Experiment) error {
	if err := rig.CheckClients(r, x); err != nil {
		return err
	}
	switch {
	case x.Instances.TTL > 0:
		return rig.Cannotf("nacos: instances.ttl: Nacos fixes when a silent instance leaves (its gRPC connection ejected after %s of silence + a %s probe); it cannot be set",
			KeepAliveTime, EjectProbeTimeout)
	case x.Instances.Count > MaxInstances:
		return rig.Cannotf("nacos: instances.count (%d): at most %d", x.Instances.Count, MaxInstances)
	case x.Instances.Spread > 0 && nacosNeedsPackets(x):
		return rig.Cannotf("nacos: instances.spread with dropped packets: the drop acts on the members' client ports, not on each instance's link, so no instance can come back later than the others")
	}
	if err := nacosCallers(x); err != nil {
		return err
	}
	cluster := nacosOnCluster(x)
	for i, s := range x.Timeline {
		if err := nacosCanStep(s, cluster); err != nil {
			return rig.Cannotf("nacos: timeline[%d]: %v", i, err)
		}
	}
	return nil
}

// nacosCallers refuses real clients not named after their client or at different rates (the
// world paces every real client alike); a user's program (kind exec) runs (execclient.go).
func nacosCallers(x experiment.Experiment) error {
	rate := 0.0
	for _, c := range x.Callers {
		switch c.Kind {
		case experiment.RealClient:
			if c.Client != rig.AllClients && c.Name != c.Client {
				return rig.Cannotf("nacos: caller %s: a real client's caller is named after its client (%s)", c.Name, c.Client)
			}
			if rate != 0 && rig.RateOf(c) != rate {
				return rig.Cannotf("nacos: caller %s: every real client calls at one rate (%g, not %g)", c.Name, rate, rig.RateOf(c))
			}
			rate = rig.RateOf(c)
		}
	}
	return nil
}

// nacosCanStep refuses a step the world cannot make (cluster: the run is on the cluster).
func nacosCanStep(s experiment.Step, cluster bool) error {
	switch {
	case s.Probe != "" || s.Fault == experiment.QuorumLoss || s.Fault == experiment.CrashInstance:
		return nil
	case (s.Fault == experiment.CutOffMember || s.Fault == experiment.MemberUnreachable) && s.WhichOf() == experiment.Leader:
		// Distro: the member holding a gRPC client's connection is responsible for it
		// (naming/.../ConnectionBasedClientManager.java:130-131); JRaft leads persistent data only.
		return fmt.Errorf("%s which: leader: Nacos's ephemeral instances (Distro, AP) have no leader — each member is responsible "+
			"for the clients connected to it; JRaft's leaders hold only persistent data, which this world does not register (which: follower picks a member)", s.Fault)
	case s.Fault == experiment.CutOffMember || s.Fault == experiment.MemberUnreachable:
		return nil
	case s.Fault == experiment.Unreachable && s.HowOf() == experiment.Drop:
		return nil // on the cluster, every member's client packets dropped
	case s.Fault == experiment.Unreachable && cluster:
		return fmt.Errorf("registry-unreachable how: %s in a run on the cluster (a member fault, packets dropped or a members probe): "+
			"the Nacos rules for a blackholed cluster are not written (how: drop is made on the cluster); run it apart", s.HowOf())
	case s.Fault == experiment.Unreachable && s.HowOf() == experiment.Kill:
		return fmt.Errorf("registry-unreachable how: kill: a killed standalone server loses every registration and takes a JVM start to return; " +
			"not made here (how: blackhole is)")
	case s.Fault == experiment.Unreachable:
		return nil
	}
	return fmt.Errorf("%s: not made in the Nacos world yet", s.Fault)
}

// Rules are Nacos's rules for x's instances on one standalone server, or on the cluster.
func (nacosRegistry) Rules(x experiment.Experiment) experiment.Rules {
	if nacosOnCluster(x) {
		return Rules{Loss: nacosLoss(x), SilentAtCut: ClientKeepAlive, Members: nacosMembers, MemberFault: nacosMemberFaultFor(x),
			Restart: DefaultClusterSpec().Member.ReadyTimeout}
	}
	return Rules{Loss: nacosLoss(x), SilentAtCut: ClientKeepAlive}
}

// nacosLoss is the longest registry-unreachable step of x (one never healed lasts to the run's end).
func nacosLoss(x experiment.Experiment) time.Duration {
	var loss time.Duration
	for _, s := range x.Timeline {
		if s.Fault != experiment.Unreachable {
			continue
		}
		d := s.For.D()
		if d == 0 { // never healed by the timeline: until the run's end
			d = x.Duration.D() - s.At.D()
		}
		loss = max(loss, d)
	}
	return loss
}
