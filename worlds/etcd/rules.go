package etcd

import (
	"fmt"

	"time"

	"sdchaos/cluster"
	"sdchaos/experiment"
)

// Rules are etcd's rules as the registry-neutral experiments' judges need
// them, for instances on leases of TTL renewed every Renew, on a cluster
// of Config. Each band's basis names the rule and where it is in etcd.
type Rules struct {
	Config     cluster.Config
	TTL, Renew time.Duration
}

// slack is the allowance for timers and scheduling on a shared host.
const slack = 50 * time.Millisecond

// electionBound is how long a majority may take to elect a leader:
// PreVote, then a randomized election timeout in [election, 2 × election).
func (r Rules) electionBound() time.Duration { return cluster.ElectionBound(r.Config.ElectionMs) }

// RefreshFails: clientv3 waits for a ready connection and retries an
// unavailable cluster until the call's deadline (client/v3's retry
// interceptor, gRPC WaitForReady), so the first refresh after the cut
// fails at its deadline, whether the members are dead or the links hold
// their bytes.
func (Rules) RefreshFails(_ experiment.How, refresh, timeout time.Duration) (time.Duration, time.Duration, string) {
	return timeout - slack, refresh + timeout + slack,
		"clientv3 retries an unavailable cluster until the deadline (client/v3 retry interceptor): the next refresh (≤ refresh) fails at its deadline (± 50 ms)"
}

// ClientWhileUnreachable: etcd's naming resolver changes the balancer's
// addresses only on watch events, and a broken watch sends none
// (client/v3/naming/resolver), so both balancers keep calling the live
// instances: no call fails.
func (Rules) ClientWhileUnreachable(string, experiment.How, time.Duration) (experiment.Band, bool) {
	return experiment.Band{Lo: 0, Hi: 0, Basis: "the resolver changes addresses only on watch events and a broken watch sends none " +
		"(client/v3/naming/resolver): the balancer keeps its addresses"}, true
}

// realFailsAfterCrash bounds a real client's failures after an instance
// crashed: calls in flight on the closed connection, or picked before the
// transport noticed.
const realFailsAfterCrash = 3

// ClientAfterCrash: gRPC sees the crashed instance's connection close;
// round_robin picks only READY subchannels, pick_first moves to the next
// address when its connection is refused.
func (Rules) ClientAfterCrash(string, int, float64, time.Duration) (experiment.Band, bool) {
	return experiment.Band{Lo: 0, Hi: realFailsAfterCrash, Basis: "gRPC sees the crashed instance's connection close; round_robin picks only " +
		"READY subchannels, pick_first moves to the next address when refused: only calls in flight or picked before the transport notices fail"}, true
}

// Recovery: a policy caller's next refresh after the heal succeeds (after
// a kill, once the restarted members elected a leader); the resolver's
// clients never lost their addresses. When the cut may have outlasted the
// instances' leases (lapsed), the leader revoked them and deleted their
// keys: a refresh lists them only once they registered again, and the
// resolver's watch, resumed from its revision, sends the deletes and then
// the new puts.
func (r Rules) Recovery(c experiment.Caller, o experiment.Outage, refresh time.Duration) (time.Duration, string) {
	d, why := r.reconnected(c, o.How, refresh)
	if !r.lapsed(o) {
		return d, why
	}
	relist, relistWhy := r.Relisted(0, o.Spread)
	lag, lagWhy := refresh+time.Second, "the caller's next refresh (≤ refresh) answers within 1 s"
	if c.Kind != experiment.PolicyCaller {
		lag, lagWhy = time.Second, "the resolver's watch resumes from its last revision (clientv3 watcher) and delivers the new key's put, "+
			"and gRPC connects to the address, within 1 s"
	}
	if relist+lag <= d {
		return d, why
	}
	return relist + lag, fmt.Sprintf("the cut (%s) may outlast the instances' leases (%s), and the leader then deletes their keys; "+
		"%s; then %s", o.Cut.Round(time.Millisecond), r.RemovesSilent(o.How, o.Cut).Basis, relistWhy, lagWhy)
}

// lapsed reports whether the instances' leases may have expired during o:
// the leader lives and the cut is long enough by RemovesSilent's rule.
// Killed members expire nothing.
func (r Rules) lapsed(o experiment.Outage) bool {
	return !o.How.Kills() && o.Cut > 0 && r.RemovesSilent(o.How, o.Cut).Hi > 0
}

// reconnected is the recovery bound when every lease outlived the cut.
func (r Rules) reconnected(c experiment.Caller, how experiment.How, refresh time.Duration) (time.Duration, string) {
	if c.Kind != experiment.PolicyCaller {
		return 0, "the resolver kept its addresses throughout"
	}
	d, why := refresh+time.Second, "its next refresh (≤ refresh) answered within 1 s"
	if how.Kills() {
		d += r.electionBound()
		why += fmt.Sprintf(", once the restarted members elected a leader (≤ 2 × %d ms election timeout + 1 s)", r.Config.ElectionMs)
	}
	return d, why
}

// RemovesSilent: a lease expires TTL after the last renewal the leader
// granted (server/lease/lessor.go); with the links cut, renewals stop at
// the cut, the last one at most Renew before it. Killed members expire
// nothing, and a new leader resets every lease's TTL (lessor.Promote).
func (r Rules) RemovesSilent(how experiment.How, d time.Duration) experiment.Band {
	if how.Kills() {
		return experiment.Band{Lo: 0, Hi: 0, Basis: "no leader, no expiry; the new leader resets every lease to its full ttl (lessor.Promote)"}
	}
	basis := fmt.Sprintf("a lease expires ttl (%s) after the last renewal, at most %s before the cut (lessor)", r.TTL, r.Renew)
	switch {
	case d < r.TTL-r.Renew-slack:
		return experiment.Band{Lo: 0, Hi: 0, Basis: basis}
	case d > r.TTL+time.Second:
		return experiment.Band{Lo: 1, Hi: 1, Basis: basis}
	}
	return experiment.Band{Lo: 0, Hi: 1, Basis: basis}
}

// MemberServes: a linearizable read needs a ReadIndex from a leader with a
// quorum, a registration (a lease grant and a put) a proposal committed by
// a quorum (etcd raft): the member alone serves neither; the majority
// serves both once it has a leader.
func (r Rules) MemberServes(f experiment.FaultKind, role experiment.Role, _ experiment.ProbeOp, since time.Duration) (experiment.Band, bool) {
	return cluster.MemberServes(f, role, since, r.Config.ElectionMs)
}

// Relisted: an instance whose lease expired registers again at its next
// renewal (KeepAliveOnce answers "lease not found", then a grant and a
// put), after its seeded delay when spread.
func (r Rules) Relisted(_ int, spread time.Duration) (time.Duration, string) {
	d := spread + r.Renew + 2*time.Second
	return d, fmt.Sprintf("each instance registers again at its next renewal after its delay: spread (%s) + renew (%s) + 2 s for the grant and the put", spread, r.Renew)
}

// RejoinWindow: an instance renews every Renew with a call deadline of
// at least Renew (fakeservice), so when a blackholed link returns every
// instance has a renewal in flight; the held request is answered at once,
// "lease not found", and the instance registers again after its seeded
// delay in [0, spread). Without a spread they all come back at once.
func (r Rules) RejoinWindow(_ experiment.How, spread time.Duration) (time.Duration, time.Duration, string) {
	return spread + time.Second, spread, fmt.Sprintf("every instance has a renewal in flight when the link returns (its deadline ≥ renew %s): "+
		"answered at once, lease not found, it registers again after its delay in [0, spread %s) (+ 1 s for the answer and the grant)", r.Renew, spread)
}

// MemberReads: a read is linearizable (clientv3's default), so the member
// that serves it needs a quorum for its ReadIndex: the survivor of a
// quorum loss has none and waits until the read's deadline (the killed
// members refuse); with one member cut off, a read sent to it waits the
// same way and a read sent to the majority is answered, the client's
// balancer choosing the member.
func (Rules) MemberReads(f experiment.FaultKind) (experiment.Reads, string) {
	if f == experiment.QuorumLoss {
		return experiment.ReadsFail, "a linearizable read needs a quorum (ReadIndex): the survivor has none and the killed members refuse"
	}
	return experiment.ReadsSome, "a linearizable read needs a quorum (ReadIndex): one sent to the cut-off member waits until its deadline, " +
		"one sent to the majority is answered; the client's balancer picks the member"
}

// The rules this world answers (every neutral judge's question).
var (
	_ experiment.RefreshRule       = Rules{}
	_ experiment.ClientOutageRule  = Rules{}
	_ experiment.ClientCrashRule   = Rules{}
	_ experiment.RecoveryRule      = Rules{}
	_ experiment.SilentRemovalRule = Rules{}
	_ experiment.MemberServesRule  = Rules{}
	_ experiment.RelistRule        = Rules{}
	_ experiment.RejoinRule        = Rules{}
	_ experiment.MemberReadsRule   = Rules{}
	_ experiment.MemberRemovesRule = Rules{}
)

// MemberRemoves: no rule here for a member's client packets dropped (this
// world does not make member-unreachable).
func (Rules) MemberRemoves(experiment.FaultKind, time.Duration) (experiment.Band, bool) {
	return experiment.Band{}, false
}
