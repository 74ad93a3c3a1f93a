package eureka

import (
	"fmt"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
	"sdchaos/worlds/eureka/eurekamodel"
	"sdchaos/worlds/eureka/eurekareal"
)

// Name is the world's --registry value.
const Name experiment.Registry = "eureka"

func init() { rig.RegisterRegistry(eurekaRegistry{}) }

// eurekaRegistry runs experiments written as data on real Netflix Eureka:
// 3 peer servers (each a JVM, Spring Cloud Netflix's server), Go instances
// that register and renew through Eureka's REST API, policy callers that
// read the instance list through the same REST API, and Netflix's Java
// DiscoveryClient as the real client; every client reaches each server
// through a proxy of its own, and every peer path has its own proxy. Time
// runs at Eureka's defaults, unscaled: a fetch every 30 s, a lease of 90 s
// renewed every 30 s.
type eurekaRegistry struct{}

// eurekaApp is the application the experiments' instances register as.
const eurekaApp = "WORKER"

// eurekaVersions names what the JVM pieces run (jvm/projects/eureka-*).
const eurekaVersions = "Netflix Eureka 2.0.6 in Spring Cloud Netflix 5.0.3"

// Name returns "eureka".
func (eurekaRegistry) Name() experiment.Registry { return Name }

// Describe names the server.
func (eurekaRegistry) Describe() string {
	return "real " + eurekaVersions + ", 3 peer servers (each a JVM), instances on 90 s leases renewed every 30 s (real time)"
}

// Clients is Netflix's Java DiscoveryClient.
func (eurekaRegistry) Clients() []rig.ClientInfo {
	return []rig.ClientInfo{{Name: eurekareal.JavaClient, What: "Netflix's Java DiscoveryClient (eureka-client 2.0.6, Jersey 3) at its defaults " +
		"(a fetch every 30 s, 3 servers tried per request), the harness's task loop calling a random instance of its cache per call"}}
}

// Can refuses what real Eureka does not have: a leader, a lease that is not
// whole seconds (or shorter than 3 s: the renewals come every third of it),
// a delay before a re-registration (the workers have none), dropped
// packets (RefusePackets). A user's program (kind exec) runs
// (execclient.go).
func (r eurekaRegistry) Can(x experiment.Experiment) error {
	if err := rig.CheckClients(r, x); err != nil {
		return err
	}
	if err := rig.RefusePackets(r.Name(), x); err != nil {
		return err
	}
	if ttl := x.Instances.TTL.D(); ttl != 0 && (ttl < 3*time.Second || ttl%time.Second != 0) {
		return rig.Cannotf("eureka: instances.ttl is the lease (leaseInfo.durationInSecs): whole seconds, at least 3 s, got %s", ttl)
	}
	if x.Instances.Spread > 0 {
		return rig.Cannotf("eureka cannot spread re-registrations (instances.spread %s): its instances register again at their next heartbeat, not after a delay of their own", x.Instances.Spread.D())
	}
	for i, s := range x.Timeline {
		if s.Fault == experiment.CutOffMember && s.WhichOf() == experiment.Leader {
			return rig.Cannotf("eureka has no leader: its servers are peers (timeline[%d]: cut-off-member takes which: follower)", i)
		}
	}
	return nil
}

// eurekaConfig is the world's configuration: Eureka's defaults; a lease
// of the experiment's ttl, renewed every third of it (30 s of 90 s by
// default), in whole seconds.
func eurekaConfig(x experiment.Experiment) eurekamodel.Config {
	c := eurekamodel.DefaultConfig()
	if ttl := x.Instances.TTL.D(); ttl > 0 {
		c.LeaseDuration = ttl
		c.RenewInterval = max(time.Second, (ttl / 3).Truncate(time.Second))
	}
	return c
}

// eurekaReadyTimeout bounds a server's start and restart in this world:
// three servers open in 17–45 s on a lightly loaded 2-core machine, but
// took 174 s here beside other sessions' JVMs (load average 23) and more
// than 3 minutes at load average 30.
const eurekaReadyTimeout = 6 * time.Minute

// eurekaProps are the real properties of x's world (time scale 1).
func eurekaProps(x experiment.Experiment) (eurekareal.Props, error) {
	return RealProps(eurekaConfig(x), eurekamodel.NewScale(time.Now(), 1))
}

// World returns the real Eureka world that runs x.
func (r eurekaRegistry) World(env *rig.Env, x experiment.Experiment) (rig.World, error) {
	if err := r.Can(x); err != nil {
		return nil, err
	}
	props, err := eurekaProps(x)
	if err != nil {
		return nil, fmt.Errorf("eureka: %w", err)
	}
	env.Duration = x.Duration.D()
	sink := &rig.Sink{}
	backend := RealBackend{PeerLinks: needsPeerLinks(x), ReadyTimeout: eurekaReadyTimeout, OnRegister: sink.Registered}
	return &eurekaNeutral{env: env, x: x, cfg: eurekaConfig(x), props: props, backend: backend, sink: sink}, nil
}

// needsPeerLinks reports whether a step cuts a server off its peers.
func needsPeerLinks(x experiment.Experiment) bool {
	for _, s := range x.Timeline {
		if s.Fault == experiment.CutOffMember {
			return true
		}
	}
	return false
}

// Rules are real Eureka's rules for x's world.
func (eurekaRegistry) Rules(x experiment.Experiment) experiment.Rules {
	props, err := eurekaProps(x)
	if err != nil {
		props = eurekareal.DefaultProps() // Can refused such an experiment before it ran
	}
	return eurekareal.Rules{Props: props, Restart: eurekaReadyTimeout}
}
