package dns

import (
	"context"
	"strings"

	"sdchaos/fault"
	"sdchaos/history"
)

// BlackholeDNS holds the clients' path to the DNS servers: every relay
// drops every datagram until the heal (registry-unreachable, how:
// blackhole). CoreDNS, etcd and the instances' own path to etcd are
// untouched.
type BlackholeDNS struct {
	Relays []*Relay
}

// Describe returns the blackhole event on the relays
// ("blackhole the clients' DNS path to dns-plain,dns-stale").
func (b BlackholeDNS) Describe() history.Event {
	names := make([]string, len(b.Relays))
	for i, r := range b.Relays {
		names[i] = r.Name
	}
	return history.Event{Kind: history.BlackholeLinks, Targets: names,
		Label: "blackhole the clients' DNS path to " + strings.Join(names, ",")}
}

// Inject holds every relay.
func (b BlackholeDNS) Inject(context.Context) error {
	for _, r := range b.Relays {
		r.Hold()
	}
	return nil
}

// Heal releases every relay.
func (b BlackholeDNS) Heal(context.Context) error {
	for _, r := range b.Relays {
		r.Release()
	}
	return nil
}

// CrashDNSInstance crashes one instance: it stops answering and renewing;
// its record lives until its lease expires. It cannot be healed.
type CrashDNSInstance struct {
	Instance *Instance
}

// Describe returns the crash-instance event ("crash instance j2").
func (c CrashDNSInstance) Describe() history.Event {
	return history.Event{Kind: history.CrashInstance, Targets: []string{c.Instance.ID}, Label: "crash instance " + c.Instance.ID}
}

// Inject crashes the instance.
func (c CrashDNSInstance) Inject(context.Context) error {
	c.Instance.Crash()
	return nil
}

// killDNS is registry-unreachable how: kill in this world: every CoreDNS server SIGKILLed,
// its cache with it, and started again at the heal (fault.KillServers, which returns once each
// answers). The relays stay: a query sent meanwhile is relayed to a closed port, whose ICMP
// refusal the relay does not pass on, so the client waits to its deadline.
func (w *World) killDNS() fault.KillServers {
	var procs []fault.ServerProcess
	for _, s := range []*Server{w.Plain, w.Stale, w.Local} {
		if s != nil {
			procs = append(procs, serverProcess{s})
		}
	}
	return fault.KillServers{Servers: procs, What: "CoreDNS"}
}

// serverProcess is a CoreDNS server as a fault.ServerProcess.
type serverProcess struct{ s *Server }

// Name names the server ("plain").
func (p serverProcess) Name() string { return p.s.Name }

// Kill SIGKILLs the server.
func (p serverProcess) Kill() { p.s.Kill() }

// Start starts the killed server again on its port and Corefile, its cache empty.
func (p serverProcess) Start(ctx context.Context) error { return p.s.Restart(ctx) }
