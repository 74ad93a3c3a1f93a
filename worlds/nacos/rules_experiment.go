package nacos

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"sdchaos/experiment"
)

// Rules are the real Nacos world's rules as the registry-neutral experiments' judges need them
// (experiment.Rules), for one standalone server whose instances register over gRPC through
// nacos-sdk-go, policy callers that read the client open API through their own link
// (OpenAPISource), and the real clients of the world (spring, plain, go-sdk). Each band's basis
// names the rule and where it is (rules.go).
type Rules struct {
	// Loss is the longest the registry is unreachable in the experiment (0: never).
	Loss time.Duration
	// SilentAtCut bounds how long an instance's connection was silent when a loss began:
	// ClientKeepAlive once its health checks are in their rhythm (the world's zero is at least
	// 2 × ClientKeepAlive after the instances registered).
	SilentAtCut time.Duration
	// Members is the number of cluster members (0: one standalone server).
	Members int
	// MemberFault is the longest member fault (quorum loss, a member cut off) of the experiment.
	MemberFault time.Duration
	// Restart bounds a killed member's start again, from its launch to its readiness.
	Restart time.Duration
}

// schedSlack is the allowance for timers and scheduling on a shared host (clock.SchedSlack's
// value: this package sits below clock's users and states it again).
const schedSlack = 50 * time.Millisecond

// RefreshFails: a policy caller's refresh is one open-API request through its own link, which
// holds the request's bytes once blackholed; the next refresh (≤ refresh after the cut) fails
// at its deadline (± 50 ms; the judge moves the bound sooner for a refresh in flight at the cut).
func (Rules) RefreshFails(how experiment.How, refresh, timeout time.Duration) (time.Duration, time.Duration, string) {
	path := "which holds its bytes"
	if how == experiment.Drop {
		path = "whose packets to and from the member are dropped"
	}
	return timeout - schedSlack, refresh + timeout + schedSlack,
		"a refresh is one request to the client open API (InstanceOpenApiController.list) through the caller's link, " + path + ": " +
			"the next refresh (≤ refresh) fails at its deadline (± 50 ms)"
}

// ClientWhileUnreachable: a Nacos client changes its list only on the server's push
// (NamingPushRequestHandler → ServiceInfoHolder.processServiceInfo, client/.../naming/cache/
// ServiceInfoHolder.java:124) or a query's answer, and a blackholed link holds both; every
// instance lives and is called directly, not through the registry: no call fails. On a cluster
// the same holds while a member fault keeps every member's copy whole (memberClientWhile).
func (r Rules) ClientWhileUnreachable(_ string, how experiment.How, _ time.Duration) (experiment.Band, bool) {
	if how == experiment.Drop {
		return r.clientWhileDrop()
	}
	if r.Members > 1 {
		return r.memberClientWhile(how)
	}
	return experiment.Band{Lo: 0, Hi: 0, Basis: "a Nacos client changes its list only on the server's push or a query's answer " +
		"(NamingPushRequestHandler → ServiceInfoHolder.processServiceInfo), and the blackholed link holds both: it keeps its list"}, true
}

// crashTail is the chance, per check, that a random client's band excludes a count the rule
// allows.
const crashTail = 1e-4

// ClientAfterCrash: while the registry is unreachable no push tells a client that an instance
// died, so its list keeps the dead one and every pick of it fails (connection refused). Spring
// Cloud LoadBalancer picks round robin (RoundRobinLoadBalancer, its default): 1/n of the calls,
// ± 3 (the position at the crash, the calls in flight, the count of calls in the window);
// nacos-client (Balancer.getHostByRandomWeight, client/.../naming/core/Balancer.java:70) and
// nacos-sdk-go (SelectOneHealthyInstance's weighted random choice) pick at random by weight,
// every weight 1 here: Binomial(calls, 1/n), between its 10⁻⁴ and 1 − 10⁻⁴ quantiles.
func (Rules) ClientAfterCrash(client string, n int, rate float64, w time.Duration) (experiment.Band, bool) {
	k, known := callerKinds[client]
	if n < 1 || !known {
		return experiment.Band{}, false
	}
	calls := math.Round(rate * w.Seconds())
	if k.java == Spring {
		share := calls / float64(n)
		return experiment.Band{Lo: math.Max(0, math.Floor(share)-3), Hi: math.Ceil(share) + 3, Basis: fmt.Sprintf(
			"no push reaches the client, the dead instance stays listed; Spring Cloud LoadBalancer's round robin sends it 1/%d of about %.0f calls (± 3)", n, calls)}, true
	}
	b := distuv.Binomial{N: calls, P: 1 / float64(n)}
	lo, hi := quantile(b, crashTail), quantile(b, 1-crashTail)
	return experiment.Band{Lo: lo, Hi: hi, Basis: fmt.Sprintf("no push reaches the client, the dead instance stays listed; its weighted random pick "+
		"(weights 1) sends it each call with chance 1/%d: Binomial(%.0f, 1/%d) between its 10⁻⁴ and 1 − 10⁻⁴ quantiles", n, calls, n)}, true
}

// quantile is the least k with CDF(k) ≥ p.
func quantile(b distuv.Binomial, p float64) float64 {
	k := 0.0
	for k < b.N && b.CDF(k) < p {
		k++
	}
	return k
}

// removes reports whether a loss of r.Loss may remove instances (it reaches NoRemovalBelow).
func (r Rules) removes() bool { return r.Loss >= NoRemovalBelow(r.SilentAtCut) }

// Recovery: without a removal, a policy caller's next refresh after the heal answers the whole
// list, and a real client's list was never emptied; after a loss that may have removed the
// instances (during it, or with packets dropped after the heal: dropRemoves), the server lists
// them again within RelistBy of the heal (each SDK's reconnect and redo; on the cluster + the
// Distro sync to the member read) and the caller's list follows: a policy caller's next refresh,
// a real client's push within DeliverSlack. One member's packets dropped (o.Cut 0) removes
// nothing: its clients move to the other members (MemberRemoves).
func (r Rules) Recovery(c experiment.Caller, o experiment.Outage, refresh time.Duration) (time.Duration, string) {
	if r.Members > 1 && o.How.Kills() {
		return r.afterQuorumLoss(c, refresh)
	}
	least, rule := NoRemovalBelow(r.SilentAtCut), removalRule(r.SilentAtCut)
	if o.How == experiment.Drop {
		least, rule = DropProbedFrom(r.SilentAtCut), dropRule(r.SilentAtCut)
	}
	if !r.dropRemoves(o.How) || (o.How == experiment.Drop && o.Cut == 0) {
		why := fmt.Sprintf("a loss of %s is below %s, the least that removes an instance (%s)", r.Loss, least, rule)
		if o.Cut == 0 {
			why = "the instances reached a member throughout (" + r.memberRemovesBasis() + ")"
		}
		if c.Kind != experiment.PolicyCaller {
			return 0, "its list was never emptied: " + why
		}
		return refresh + time.Second, "its next refresh (≤ refresh) answered within 1 s; the server removed no instance: " + why
	}
	relist := RelistBy() + r.distro()
	if c.Kind != experiment.PolicyCaller {
		return relist + DeliverSlack, fmt.Sprintf("the server may have removed the instances (%s); each is listed again within %s of the heal (%s%s) "+
			"and the push reaches the client within %s more", rule, relist, relistRule(), r.distroRule(), DeliverSlack)
	}
	return relist + refresh + time.Second, fmt.Sprintf("the server may have removed the instances (%s); each is listed again within %s of the heal (%s%s), "+
		"then its next refresh (≤ refresh) answered within 1 s", rule, relist, relistRule(), r.distroRule())
}

// memberRemovesBasis is MemberRemoves' basis, or why a member fault that kills nothing removes nothing.
func (r Rules) memberRemovesBasis() string {
	if b, ok := r.MemberRemoves(experiment.MemberUnreachable, 0); ok {
		return b.Basis
	}
	return "no member fault removes a client's connection"
}

// RemovesSilent: a blackholed instance's connection is silent from the cut; the ejector probes
// it once it was silent KeepAliveTime and unregisters it EjectProbeTimeout later, which removes
// its instances (ConnectionBasedClientManager.clientDisConnected). A loss below NoRemovalBelow
// removes none, one beyond EmptyBy + PushDelay every one.
func (r Rules) RemovesSilent(_ experiment.How, d time.Duration) experiment.Band {
	basis := removalRule(r.SilentAtCut)
	if r.Members > 1 {
		basis = "each member by itself, for the connections it holds (the instances of the clients connected to it): " + basis
	}
	switch {
	case d < NoRemovalBelow(r.SilentAtCut):
		return experiment.Band{Lo: 0, Hi: 0, Basis: fmt.Sprintf("%s: none before %s", basis, NoRemovalBelow(r.SilentAtCut))}
	case d > EmptyBy()+PushDelay+r.distro():
		return experiment.Band{Lo: 1, Hi: 1, Basis: fmt.Sprintf("%s: every one by %s (+ the %s push delay of the answered list%s)", basis, EmptyBy(), PushDelay, r.distroRule())}
	}
	return experiment.Band{Lo: 0, Hi: 1, Basis: fmt.Sprintf("%s: between %s and %s, either%s", basis, NoRemovalBelow(r.SilentAtCut), EmptyBy()+PushDelay+r.distro(), r.distroRule())}
}

// removalRule says how the server removes a silent connection's instances.
func removalRule(silent time.Duration) string {
	return fmt.Sprintf("an instance lives with its gRPC connection; a silent one is probed once idle %s (RuntimeConnectionEjector.KEEP_ALIVE_TIME, "+
		"the ejector every %s) and unregistered with its instances %s later (NacosRuntimeConnectionEjector, ConnectionBasedClientManager.clientDisConnected); "+
		"each was silent at most %s at the cut (its health check every %s), − %s",
		KeepAliveTime, EjectEvery, EjectProbeTimeout, silent, ClientKeepAlive, LowSlack)
}

// relistRule says how an instance comes back.
func relistRule() string {
	return fmt.Sprintf("nacos-sdk-go's reconnect loop sleeps ≤ %s, its attempt waits ≤ %s for the server check, %s after the set-up it re-registers "+
		"(redoRegisterEachService), the answered list follows the %s push delay, + %s", ReconnectSleep, ServerCheckTimeout, SDKSetupSleep, PushDelay, RuleSlack)
}

// Relisted: each instance's own SDK re-registers it after its reconnect, within RelistBy of
// the heal (after the seeded delay, when spread); on the cluster the member read has it from the
// member the SDK reconnected to within DistroSyncDelay more.
func (r Rules) Relisted(_ int, spread time.Duration) (time.Duration, string) {
	return spread + RelistBy() + r.distro(), fmt.Sprintf("each instance's nacos-sdk-go registers it again after its reconnect: spread (%s) + %s (%s)%s",
		spread, RelistBy(), relistRule(), r.distroRule())
}

// RejoinWindow: every instance's SDK reconnects on its own loop once the link returns; all may
// come at once, within RelistBy.
func (Rules) RejoinWindow(_ experiment.How, spread time.Duration) (time.Duration, time.Duration, string) {
	return spread + RelistBy(), spread, "every instance's nacos-sdk-go reconnects on its own loop once its link returns (" + relistRule() + ")"
}

// ListMerge: the server's answered list (ServiceStorage) changes only when a push task runs
// (PushExecuteTask → ServiceStorage.getPushData), and the task takes in every change within
// PushDelay of the first (PushDelayTask.merge keeps the earliest lastProcessTime), run up to an
// EngineInterval later: one change of the list holds the registrations of up to PushDelay +
// EngineInterval.
func (Rules) ListMerge() (time.Duration, string) {
	return PushDelay + EngineInterval, fmt.Sprintf("the server's list changes when its push task runs, which takes in every change within %s "+
		"of the first (PushDelayTask.merge) and runs ≤ %s after it (NacosDelayTaskExecuteEngine processInterval)", PushDelay, EngineInterval)
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
