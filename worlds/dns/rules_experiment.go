package dns

import (
	"fmt"
	"math"
	"time"

	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/rig"
)

// Rules are the DNS world's rules as the registry-neutral judges ask them
// (experiment.Rules): instances on leases of TTL renewed every Renew, the
// etcd behind CoreDNS electing within ElectionMs, and the clients of
// Clients. Each band's basis cites the rule (rules.go, and the Go, gRPC
// and CoreDNS sources it names). In this world, registry-unreachable is a
// blackhole of the clients' DNS path, Kill is quorum-loss (Can refuses
// registry-unreachable how: kill) and CutPeers an etcd member cut off its
// peers, so how tells the three apart.
type Rules struct {
	TTL, Renew time.Duration
	ElectionMs uint
	// CallTimeout is a real client's call deadline.
	CallTimeout time.Duration
}

// RulesFor returns the rules of a world with o.
func RulesFor(o Options) Rules {
	return Rules{TTL: o.Service.TTL, Renew: o.Service.Renew, ElectionMs: cluster.DefaultConfig().ElectionMs, CallTimeout: rig.CallTimeout}
}

// deadlineSlack is the allowance for a timer that ends a deadline.
const deadlineSlack = 50 * time.Millisecond

// The rules this world answers.
var (
	_ experiment.RefreshRule       = Rules{}
	_ experiment.ClientOutageRule  = Rules{}
	_ experiment.ClientCrashRule   = Rules{}
	_ experiment.RecoveryRule      = Rules{}
	_ experiment.SilentRemovalRule = Rules{}
	_ experiment.MemberServesRule  = Rules{}
	_ experiment.MemberReadsRule   = Rules{}
)

// heldBasis says what a query on the held path gets.
const heldBasis = "the relay drops the query and its reply; Go's resolver waits for an answer until the lookup's deadline " +
	"(src/net/dnsclient_unix.go:182 context.WithDeadline, :190 SetDeadline) and sends no other query within it"

// killedBasis says what a query to a killed server gets.
const killedBasis = "every CoreDNS server is killed, its cache with it: the relay sends the query to a closed port and does not pass " +
	"the ICMP refusal on (relay.go, replies), so Go's resolver waits for an answer until the lookup's deadline " +
	"(src/net/dnsclient_unix.go:182, :190)"

// restartBasis says when a killed server answers again: the heal starts it and returns once it
// answers, which no rule bounds; the harness gives up on a start after StartTimeout.
var restartBasis = fmt.Sprintf("the killed servers start again at the heal, with empty caches, and answer once their process is up: "+
	"a start no rule bounds, so the harness's own allowance for it, %s (StartTimeout), stands in", StartTimeout)

// RefreshFails: a policy caller's refresh is Go's resolver through the
// server without a cache. Held (blackhole) or killed, the next refresh
// (≤ refresh) fails at its deadline. After a quorum loss the etcd plugin's Get waits
// up to 5 s (EtcdReadBasis) or fails sooner (a member that knows it has no
// leader): the refresh fails at its deadline or sooner, so only the upper
// bound is a rule.
func (Rules) RefreshFails(how experiment.How, refresh, timeout time.Duration) (time.Duration, time.Duration, string) {
	switch how {
	case experiment.KillQuorum:
		return 0, refresh + timeout + deadlineSlack, "the etcd plugin's linearizable Get cannot be answered without a quorum: " + EtcdReadBasis +
			"; the next refresh (≤ refresh) fails by its deadline"
	case experiment.Kill:
		return timeout - deadlineSlack, refresh + timeout + deadlineSlack, killedBasis + ": the next refresh (≤ refresh) fails at its deadline (± 50 ms)"
	}
	return timeout - deadlineSlack, refresh + timeout + deadlineSlack, heldBasis + ": the next refresh (≤ refresh) fails at its deadline (± 50 ms)"
}

// ClientWhileUnreachable: with the clients' DNS path held every lookup of
// Go's resolver fails, through either server (the cache is behind the
// held path), and with every server killed (its cache with it); gRPC's dns
// resolver keeps its addresses and calls the live instances. After a quorum loss Go's resolver fails through the server
// without a cache and is answered by serve_stale through the other. With
// one member cut off (CutPeers) serve_stale answers every lookup, and Go's
// resolver without a cache fails the share the plugin's balancer sends the
// cut member: no rule.
func (r Rules) ClientWhileUnreachable(client string, how experiment.How, _ time.Duration) (experiment.Band, bool) {
	all := func(basis string) experiment.Band { return experiment.Band{Lo: 100, Hi: 100, Basis: basis} }
	none := func(basis string) experiment.Band { return experiment.Band{Lo: 0, Hi: 0, Basis: basis} }
	switch {
	case client == ClientGRPC:
		return none(GRPCDNSBasis + "; a failed resolution is reported to the balancer (dns_resolver.go:213 ReportError), and round_robin's " +
			"children keep their addresses on a resolver error (balancer/endpointsharding/endpointsharding.go:202-207); every instance lives"), true
	case how == experiment.CutPeers && client == ClientGoStale:
		return none(StaleBasis + "; the entry was filled before the cut and is answered without a Get"), true
	case how == experiment.CutPeers:
		return experiment.Band{}, false // Go's resolver without a cache: the share of its lookups the balancer sends the cut member (cutReadBasis)
	case how == experiment.Blackhole && (client == ClientGo || client == ClientGoStale):
		return all(heldBasis + "; the cache sits behind the held path"), true
	case how == experiment.Kill && (client == ClientGo || client == ClientGoStale):
		return all(killedBasis), true
	case how == experiment.KillQuorum && client == ClientGo:
		return all(EtcdReadBasis + "; the lookup's 2 s deadline comes first"), true
	case how == experiment.KillQuorum && client == ClientGoStale:
		return none(StaleBasis + "; the entry was filled before the quorum loss and is kept for serve_stale's 1 h (setup.go:186)"), true
	}
	return experiment.Band{}, false
}

// ClientAfterCrash: Go's resolver calls no instance, and with the path
// held every lookup fails, the crash or not: all of them, those sent in
// the lookup deadline (2 s) before the crash too, which were still held
// at it and count with it (the judge counts a call in flight at the crash
// after it), ±1 for the window's edges. gRPC's dns resolver reads A records, one per instance
// (each on its own address, instanceHost), and its round_robin picks READY subchannels only: a
// crashed instance's connection closes and leaves READY at once, and an RPC not yet written is
// retried transparently (gRFC A6), so only the calls on the wire at the crash can fail.
func (r Rules) ClientAfterCrash(client string, _ int, rate float64, w time.Duration) (experiment.Band, bool) {
	if client == ClientGRPC {
		return experiment.Band{Lo: 0, Hi: math.Ceil(rate * r.CallTimeout.Seconds()), Basis: fmt.Sprintf("%s; each instance on its own address, "+
			"round_robin picks READY subchannels only (balancer/roundrobin over pickfirst leaves), a closed connection leaves READY at once and "+
			"unsent RPCs are retried transparently (gRFC A6): only calls in flight at the crash fail, at most rate %.0f/s × deadline %s",
			GRPCDNSBasis, rate, r.CallTimeout)}, true
	}
	n := rate * (w + lookupTimeout).Seconds()
	return experiment.Band{Lo: math.Max(0, math.Floor(n)-1), Hi: math.Ceil(n) + 1,
		Basis: fmt.Sprintf("%s: every one of the ≈ %.0f lookups from %s before the crash (in flight at it, held to their deadline) "+
			"until the heal fails (± 1 at the edges)", heldBasis, n, lookupTimeout)}, true
}

// electionBound is how long the restarted majority may take to elect a
// leader: PreVote, then a randomized election timeout in [election,
// 2 × election), + 1 s for the restart (as the etcd world's rule).
func (r Rules) electionBound() time.Duration { return cluster.ElectionBound(r.ElectionMs) }

// Recovery: once the path is released the next query passes; once the
// killed DNS servers started again (restartBasis), each query is answered
// from etcd; once the killed members restarted and a leader is elected,
// the etcd plugin's Get is answered; once a cut member rejoined, a lookup held by a Get sent to
// it before the heal has ended. A policy caller needs its next refresh (≤ refresh, + 1 s);
// Go's resolver through serve_stale never lost its answer; gRPC kept its
// addresses.
func (r Rules) Recovery(c experiment.Caller, o experiment.Outage, refresh time.Duration) (time.Duration, string) {
	wait, why := time.Duration(0), "the relay passes the next query at once"
	switch {
	case o.How == experiment.CutPeers:
		wait, why = lookupTimeout+r.electionBound(), fmt.Sprintf("a Get sent to the cut member before the heal may hold its lookup to its %s deadline, "+
			"and the member answers once it hears the leader again (≤ 2 × %d ms election timeout + 1 s, were it the leader cut off)", lookupTimeout, r.ElectionMs)
	case o.How == experiment.Kill:
		wait, why = StartTimeout, restartBasis+"; then the plain server's Get and the stale server's (its cache empty) are answered by etcd, "+
			"which lived throughout"
	case o.How == experiment.KillQuorum:
		wait, why = r.electionBound(), fmt.Sprintf("the restarted members elect a leader (≤ 2 × %d ms election timeout + 1 s) and the etcd plugin's next Get is answered", r.ElectionMs)
	}
	switch {
	case c.Kind == experiment.PolicyCaller:
		return wait + refresh + time.Second, why + "; then its next refresh (≤ refresh) answers within 1 s"
	case c.Client == ClientGRPC:
		return 0, "gRPC's dns resolver kept its addresses throughout"
	case c.Client == ClientGoStale && (o.How == experiment.KillQuorum || o.How == experiment.CutPeers):
		return 0, StaleBasis + ": every lookup was answered throughout"
	}
	return wait + lookupTimeout, why + "; a lookup sent before it may wait out its 2 s deadline"
}

// RemovesSilent: the instances renew their leases on etcd directly,
// beside the held DNS path, and a quorum loss expires nothing (no leader;
// the new leader resets every lease, lessor.Promote): no live instance's
// record goes.
func (Rules) RemovesSilent(how experiment.How, _ time.Duration) experiment.Band {
	if how == experiment.KillQuorum {
		return experiment.Band{Lo: 0, Hi: 0, Basis: "no leader, no expiry; the new leader resets every lease to its full ttl (lessor.Promote)"}
	}
	return experiment.Band{Lo: 0, Hi: 0, Basis: "only the DNS servers or the clients' path to them are gone: the instances keep renewing their leases on etcd, and their records live on them"}
}

// MemberServes: the records are read linearizably (as the etcd plugin
// reads) and a registration is a lease grant and a put: the survivor of a
// quorum loss and a member cut off its peers serve neither; the two
// members left with each other elect and serve both.
func (r Rules) MemberServes(f experiment.FaultKind, role experiment.Role, _ experiment.ProbeOp, since time.Duration) (experiment.Band, bool) {
	return cluster.MemberServes(f, role, since, r.ElectionMs)
}

// MemberReads: the policy callers refresh through the server without a
// cache, whose every lookup is a linearizable Get: during a quorum loss
// every one fails; with one member cut off, those the plugin's balancer
// sends to that member.
func (Rules) MemberReads(f experiment.FaultKind) (experiment.Reads, string) {
	switch f {
	case experiment.QuorumLoss:
		return experiment.ReadsFail, EtcdReadBasis
	case experiment.CutOffMember:
		return experiment.ReadsSome, cutReadBasis
	}
	return experiment.ReadsSome, "no rule: this world makes no other member fault"
}

// cutReadBasis says how a lookup fares while one etcd member is cut off.
const cutReadBasis = "the etcd plugin's client sends its Gets to the members in turn (clientv3's resolver asks gRPC for round_robin, " +
	"client/v3 internal/resolver/resolver.go:44); a linearizable Get that reaches the cut member waits for a ReadIndex it cannot get " +
	"until the plugin's 5 s timeout (etcd.go:28, :90), so a lookup any of whose Gets reaches it fails at its own 2 s deadline " +
	"(an SRV lookup may take more than one Get, etcd.go:96-104, and a client's lookups interleave with every other client's in the turn)"
