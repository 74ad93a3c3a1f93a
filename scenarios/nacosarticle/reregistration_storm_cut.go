package nacosarticle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"

	"sdchaos/cluster"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/storm"
	"sdchaos/worlds/etcd"
)

// fleetAddr is the address the registrants dial from in the private
// namespace, where the storm's cut drops their packets (and only theirs:
// the harness's probes dial from another address).
var fleetAddr = netip.MustParseAddr("127.0.0.200")

// linkCut is the storm's cut: on the host's loopback a blackhole held in
// the registrants' own connections (hold, given to the fleet: no proxy on
// the path, whose copies cost the harness a third of its CPU time at 5000
// links); in the private namespace (--net private) a drop of every packet
// between the registrants and the members' client ports.
func linkCut(env *scenarios.Env, r *etcd.Etcd, hold *fakeservice.Cut) (fault.Healer, error) {
	if env.Net != rig.Private {
		return fault.BlackholeConns{Cut: hold, Targets: memberAddrs(r.Cluster)}, nil
	}
	f, err := env.Filter()
	if err != nil {
		return nil, fmt.Errorf("the storm's packet filter: %w", err)
	}
	return &etcd.DropClientPackets{Filter: f, Nodes: r.Cluster.Nodes(), Loss: 1, Dir: fault.BothWays, Client: fleetAddr}, nil
}

// linkLoss is the storm's fault: every registrant's link cut (a blackhole
// held in their connections, or with --net private every packet between the
// registrants and the members dropped), and the registrants told so (they
// stop renewing); its heal lets bytes pass and tells the registrants the
// link is back: they re-register with their back-off.
type linkLoss struct {
	cut     fault.Healer
	fleet   *storm.Fleet
	backoff storm.Backoff
	rand    *rand.Rand
}

// Describe returns the cut's event, labelled with the strategy.
func (l linkLoss) Describe() history.Event {
	e := l.cut.Describe()
	e.Label += "; registrants re-register " + strategyName(l.backoff) + " on heal"
	return e
}

// Inject cuts the links and tells the registrants.
func (l linkLoss) Inject(ctx context.Context) error {
	if err := l.cut.Inject(ctx); err != nil {
		return err
	}
	l.fleet.LinkDown()
	return nil
}

// Heal lets bytes pass and starts the re-registration.
func (l linkLoss) Heal(ctx context.Context) error {
	if err := l.cut.Heal(ctx); err != nil {
		return err
	}
	l.fleet.LinkUp(l.backoff, l.rand)
	return nil
}

// linkCutKinds are the event kinds of the storm's cut: the
// blackhole, or the packet drop in the private namespace.
var linkCutKinds = []history.EventKind{history.BlackholeLinks, history.PacketDropClients}

// memberAddrs returns the members' client addresses (host:port).
func memberAddrs(c *cluster.Cluster) []string {
	out := make([]string, c.Size())
	for i, n := range c.Nodes() {
		out[i] = n.ClientAddr()
	}
	return out
}

// fleetCut returns the blackhole the fleet's connections hold on the
// host's loopback, nil in the private namespace (the packet filter cuts).
func fleetCut(env *scenarios.Env) *fakeservice.Cut {
	if env.Net == rig.Private {
		return nil
	}
	return fakeservice.NewCut()
}
