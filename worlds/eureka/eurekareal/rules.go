package eurekareal

import (
	"fmt"
	"math"
	"time"

	"sdchaos/experiment"
)

// JavaClient is the name the registry-neutral experiments give Netflix's
// Java DiscoveryClient (the scheduler's client, jvm.EurekaClient) with the
// harness's task loop over its cache.
const JavaClient = "java-discoveryclient"

// Rules are real Eureka's rules as the registry-neutral experiments'
// judges need them, for servers, instances and clients of Props (real
// time). Each band's basis names the rule and where it is: Netflix eureka
// 2.0.6 (eureka-core, eureka-client) and Spring Cloud Netflix 5.0.3 (the
// server's defaults), the versions the JVM pieces run.
type Rules struct {
	Props Props
	// Restart bounds how long a killed server takes to be open again (the
	// world's start-up allowance; DefaultReadyTimeout when 0).
	Restart time.Duration
}

// slack is the allowance for timers and scheduling on a shared host.
const slack = 50 * time.Millisecond

// answerWithin bounds one REST answer of a live server on loopback.
const answerWithin = time.Second

// RefreshFails: a blackholed link accepts the connection and holds every
// byte, so the policy caller's GET apps/APP waits out its deadline
// whatever server it tries; a killed server's port refuses (its client
// proxy resets the connection), so every try fails at once and the list
// fails as soon as its tries are spent.
func (Rules) RefreshFails(how experiment.How, refresh, timeout time.Duration) (time.Duration, time.Duration, string) {
	if how.Kills() {
		return 0, refresh + slack, fmt.Sprintf("every server's port refuses: the next refresh (≤ refresh) fails as soon as its %d tries "+
			"(RetryableEurekaHttpClient's DEFAULT_NUMBER_OF_RETRIES) are refused", 3)
	}
	return timeout - slack, refresh + timeout + slack,
		"a blackholed link holds the request's bytes: the next refresh (≤ refresh) of GET /eureka/apps/<APP> fails at its deadline (± 50 ms)"
}

// ClientWhileUnreachable: DiscoveryClient's CacheRefreshThread calls
// refreshRegistry → fetchRegistry, which catches a failed fetch (after
// RetryableEurekaHttpClient has tried 3 servers) and returns false without
// touching the cached registry (localRegionApps): the task loop keeps
// calling the instances it held, all alive.
func (Rules) ClientWhileUnreachable(client string, _ experiment.How, _ time.Duration) (experiment.Band, bool) {
	if client != JavaClient {
		return experiment.Band{}, false
	}
	return experiment.Band{Lo: 0, Hi: 0, Basis: "a failed fetch keeps the cached registry (DiscoveryClient.fetchRegistry catches it and " +
		"returns false; CacheRefreshThread retries at the next interval): every instance it holds lives"}, true
}

// ClientAfterCrash: the client's cache keeps the crashed instance (no
// fetch succeeds while the registry is unreachable), and the task loop
// over it picks one instance per task at random (seeded), without retry:
// each call fails with probability 1/n, so the failures of rate·w calls
// are Binomial(rate·w, 1/n); the band is its mean ± 3.3 standard
// deviations (99.9 %) and ± 2 for the calls in flight at the crash.
func (Rules) ClientAfterCrash(client string, n int, rate float64, w time.Duration) (experiment.Band, bool) {
	if client != JavaClient || n < 1 {
		return experiment.Band{}, false
	}
	calls := rate * w.Seconds()
	p := 1 / float64(n)
	mean, sd := calls*p, math.Sqrt(calls*p*(1-p))
	return experiment.Band{Lo: math.Max(0, math.Floor(mean-3.3*sd)-2), Hi: math.Ceil(mean+3.3*sd) + 2,
		Basis: fmt.Sprintf("no fetch succeeds, so the cache keeps the dead instance; one random pick per call, no retry: "+
			"Binomial(%.0f calls, 1/%d), mean ± 3.3 sd (99.9 %%), ± 2 at the crash's instant", calls, n)}, true
}

// restart returns the start-up allowance of a killed server.
func (r Rules) restart() time.Duration {
	if r.Restart > 0 {
		return r.Restart
	}
	return DefaultReadyTimeout
}

// Recovery: after a blackhole the servers never stopped, so a policy
// caller's next refresh answers and the Java client never lost an
// instance. After a kill, a restarted server keeps nothing and copies
// nothing (registry-sync-retries 0, Spring Cloud's default): it serves an
// empty registry until each instance's next heartbeat is refused (404)
// and it registers again (DiscoveryClient.renew; the harness's workers do
// the same), then until the read-only response cache's next update
// (response-cache-update-interval-ms), then until the reader's next read.
//
// After a blackhole long enough for a lease to expire (lapsed), the server
// may have evicted an instance: a read lists it only once it registered
// again (Relisted) and the reader read again.
func (r Rules) Recovery(c experiment.Caller, o experiment.Outage, refresh time.Duration) (time.Duration, string) {
	read := refresh
	if c.Kind != experiment.PolicyCaller {
		read = r.Props.FetchInterval
	}
	if !o.How.Kills() && r.lapsed(o) {
		relist, why := r.Relisted(0, o.Spread)
		return relist + read, fmt.Sprintf("the cut (%s) may outlast a lease (%s): %s; then the reader's next read (≤ %s)",
			o.Cut.Round(time.Millisecond), r.RemovesSilent(o.How, o.Cut).Basis, why, read)
	}
	if !o.How.Kills() {
		if c.Kind != experiment.PolicyCaller {
			return 0, "the client's cache kept every instance throughout"
		}
		return refresh + answerWithin, "its next refresh (≤ refresh) answered within 1 s"
	}
	p := r.Props
	d := r.restart() + p.RenewInterval + p.CacheUpdate + read + answerWithin
	return d, fmt.Sprintf("the servers restart empty (open within %s) and list an instance once its next heartbeat (≤ %s) was refused "+
		"and it registered again, after the response cache's next update (≤ %s) and the reader's next read (≤ %s), + 1 s",
		r.restart(), p.RenewInterval, p.CacheUpdate, read)
}

// lapsed reports whether a lease may have expired and been evicted during
// o's cut by RemovesSilent's rule.
func (r Rules) lapsed(o experiment.Outage) bool {
	return o.Cut > 0 && r.RemovesSilent(o.How, o.Cut).Hi > 0
}

// RemovesSilent: a killed and restarted server holds nothing, so every
// instance is missing until it registers again. With the links cut, the
// servers live but hear no renewal: a renewed lease expires 2 × its
// duration after its last renewal (Lease.renew adds the duration once,
// Lease.isExpired again: the bug its comment keeps), a lease never renewed
// its duration after the registration; the eviction task (every
// eviction-interval-timer-in-ms) removes an expired lease only while
// expiry is enabled: with self-preservation on, isLeaseExpirationEnabled
// needs more renewals in the last full minute (MeasuredRate, 60 s) than
// the threshold, so evictions stop once a full minute had none.
func (r Rules) RemovesSilent(how experiment.How, d time.Duration) experiment.Band {
	if how.Kills() {
		return experiment.Band{Lo: 1, Hi: 1, Basis: "a restarted server starts empty (no disk, registry-sync-retries 0): every instance is " +
			"missing until its heartbeat is refused and it registers again"}
	}
	p := r.Props
	first := p.LeaseDuration - p.RenewInterval // a lease registered less than one renewal before the cut, never renewed
	basis := fmt.Sprintf("a lease expires 2 × %s after its last renewal (Lease.isExpired), %s after a registration never renewed "+
		"(≤ %s before the cut), evicted at the next eviction run (every %s) while expiry is enabled",
		p.LeaseDuration, p.LeaseDuration, p.RenewInterval, p.EvictionInterval)
	switch {
	case d < first-slack:
		return experiment.Band{Lo: 0, Hi: 0, Basis: basis}
	case !p.SelfPreservation && d > 2*p.LeaseDuration+p.EvictionInterval+slack:
		return experiment.Band{Lo: 1, Hi: 1, Basis: basis + "; self-preservation is off"}
	case p.SelfPreservation:
		basis += fmt.Sprintf("; self-preservation stops evictions while the renewals of the last full minute are at most "+
			"renewal-percent-threshold (%g) × the expected ones (isLeaseExpirationEnabled): from the first full minute without one", p.RenewalPercent)
	}
	return experiment.Band{Lo: 0, Hi: 1, Basis: basis}
}

// MemberServes: every Eureka server serves alone. A read is answered from
// the server's own registry through its response cache
// (ApplicationResource.getApplication), and a registration is taken
// locally and replicated to the peers afterwards, in the background
// (PeerAwareInstanceRegistryImpl.register → replicateToPeers, batched by
// PeerEurekaNode): no quorum, no leader. A cut-off server and the survivor
// of a quorum loss answer both; so do the servers the cut-off one left.
func (Rules) MemberServes(f experiment.FaultKind, role experiment.Role, op experiment.ProbeOp, _ time.Duration) (experiment.Band, bool) {
	if f == experiment.QuorumLoss && role == experiment.Majority {
		return experiment.Band{}, false // no majority side
	}
	basis := "every server reads its own registry (ApplicationResource.getApplication)"
	if op == experiment.Register {
		basis = "every server registers locally and replicates afterwards (PeerAwareInstanceRegistryImpl.register → replicateToPeers)"
	}
	return experiment.Band{Lo: 1, Hi: 1, Basis: basis + ": no quorum, no leader (AP)"}, true
}

// Relisted: an instance whose lease is gone registers again at its next
// heartbeat (a 404 to the renewal makes DiscoveryClient.renew register),
// after its delay when spread; a reader sees it after the read-only
// response cache's next update.
func (r Rules) Relisted(_ int, spread time.Duration) (time.Duration, string) {
	p := r.Props
	d := spread + p.RenewInterval + p.CacheUpdate + 2*time.Second
	return d, fmt.Sprintf("each instance registers again at its next heartbeat after its delay: spread (%s) + renew (%s), "+
		"seen after the response cache's next update (≤ %s), + 2 s", spread, p.RenewInterval, p.CacheUpdate)
}

// RejoinWindow: an instance whose lease is gone registers again at its
// next heartbeat, answered 404 (DiscoveryClient.renew registers then; the
// harness's workers do the same). A heartbeat held by the blackhole is
// answered at the return; every other worker is asleep and sends its next
// within one renewal interval: they come back within RenewInterval (+ 1 s
// for the 404 and the registration), and the held ones may all come at
// once. The world refuses a spread.
func (r Rules) RejoinWindow(experiment.How, time.Duration) (time.Duration, time.Duration, string) {
	p := r.Props
	return p.RenewInterval + time.Second, 0, fmt.Sprintf("an instance whose lease is gone registers again at its next heartbeat "+
		"(answered 404: DiscoveryClient.renew registers), the held ones answered at the return, the others within one renewal (%s): "+
		"all may come at once (+ 1 s)", p.RenewInterval)
}

// MemberReads: every server reads its own registry, and every server held
// every instance before the fault; a killed server's port refuses (its
// client proxy resets the connection), so a reader moves to the next
// server at once (RetryableEurekaHttpClient's 3 tries; the policy callers
// do the same) and a live one answers.
func (Rules) MemberReads(f experiment.FaultKind) (experiment.Reads, string) {
	basis := "every server reads its own registry, which held every instance (ApplicationResource.getApplication)"
	if f == experiment.QuorumLoss {
		basis += "; a killed server refuses at once and the reader tries the next (3 tries: RetryableEurekaHttpClient), the survivor answers"
	}
	return experiment.ReadsAnswer, basis
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
