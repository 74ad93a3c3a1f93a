package dns

import (
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// Name is the world's --registry value.
const Name experiment.Registry = "dns"

// The real clients of the DNS world.
const (
	// ClientGo is Go's resolver (net.Resolver, PreferGo, no cache) asking
	// the server without a cache for the service's SRV records: one
	// lookup a call.
	ClientGo = "go-resolver"
	// ClientGoStale is Go's resolver asking the server whose cache serves
	// stale answers (serve_stale).
	ClientGoStale = "go-resolver-stale"
	// ClientGRPC is gRPC-Go's dns resolver with round_robin, calling the
	// instances' gRPC health service.
	ClientGRPC = "grpc-dns"
)

func init() { rig.RegisterRegistry(dnsRegistry{}) }

// dnsRegistry runs experiments written as data on the DNS world.
type dnsRegistry struct{}

// Name returns "dns".
func (dnsRegistry) Name() experiment.Registry { return Name }

// Describe names CoreDNS's version, its plugins and their settings.
func (dnsRegistry) Describe() string {
	return "CoreDNS " + coreDNSVersion() + " (plugins bind, errors, cache, etcd, forward) over etcd (3 members); servers: plain (etcd, no cache), " +
		"stale (etcd, " + DefaultOptions(experiment.Experiment{}).Stale.describe() + "); instances' SkyDNS records on their leases"
}

// Clients are Go's resolver through each server and gRPC's dns resolver.
func (dnsRegistry) Clients() []rig.ClientInfo {
	return []rig.ClientInfo{
		{Name: ClientGo, What: "Go's resolver (net.Resolver, PreferGo, no cache): SRV lookups through CoreDNS without a cache, 2 s each"},
		{Name: ClientGoStale, What: "Go's resolver: SRV lookups through CoreDNS with the cache and serve_stale immediate, 2 s each"},
		{Name: ClientGRPC, What: "gRPC-Go's dns resolver (A records, re-resolving at most every 30 s) with round_robin, calling the health service"},
	}
}

// Can refuses what the world does not make: a registry-unreachable
// other than a blackhole of the clients' DNS path, a member cut off in the
// same experiment as the registry unreachable (the rules tell the two
// apart by the experiment, not by the step), dropped packets, a user's
// program, an attached registry, and ttls fakeservice refuses.
func (r dnsRegistry) Can(x experiment.Experiment) error {
	if err := rig.CheckClients(r, x); err != nil {
		return err
	}
	if err := rig.RefusePackets(r.Name(), x); err != nil {
		return err
	}
	if err := DefaultOptions(x).Service.Validate(); err != nil {
		return rig.Cannotf("dns: instances.ttl: %v", err)
	}
	for i, s := range x.Timeline {
		switch {
		case s.Fault == experiment.Unreachable && s.HowOf() != experiment.Blackhole && s.HowOf() != experiment.Kill:
			return rig.Cannotf("dns: timeline[%d]: registry-unreachable how: %s is not made here (blackhole: the clients' DNS path held; kill: the DNS servers killed and started again)", i, s.HowOf())
		}
	}
	for _, c := range x.Callers {
		if c.Kind == experiment.ExecClient {
			return rig.Cannotf("dns runs no user's program (the exec protocol gives etcd's endpoints, not a DNS server)")
		}
	}
	return nil
}

// World builds the DNS world that runs x.
func (r dnsRegistry) World(env *rig.Env, x experiment.Experiment) (rig.World, error) {
	if err := r.Can(x); err != nil {
		return nil, err
	}
	if env.Attach != nil {
		return nil, rig.Cannotf("dns attaches to no registry: it starts its own etcd and CoreDNS")
	}
	env.Duration = x.Duration.D()
	return NewWorld(env, x, DefaultOptions(x)), nil
}

// Rules are the DNS world's rules for x (RulesFor).
func (dnsRegistry) Rules(x experiment.Experiment) experiment.Rules {
	return RulesFor(DefaultOptions(x))
}

// lookupTimeout bounds a real client's lookup (Go's resolver).
const lookupTimeout = 2 * time.Second
