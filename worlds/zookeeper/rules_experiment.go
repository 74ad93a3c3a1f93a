package zookeeper

import (
	"fmt"
	"math"
	"time"

	"sdchaos/experiment"
)

// The real clients of the ZooKeeper world, as experiments name them.
const (
	// ClientCurator is Curator's ServiceDiscovery with a ServiceCache and
	// RoundRobinStrategy (the Java caller in mode Curator).
	ClientCurator = "curator-servicecache"
	// ClientSpring is Spring Cloud Zookeeper discovery with Spring Cloud
	// LoadBalancer at its defaults (the Java caller in mode Spring).
	ClientSpring = "spring-cloud-zookeeper"
)

// Harness allowances that are not ZooKeeper rules, stated as such.
const (
	// slack is the allowance for timers and scheduling on a shared host.
	slack = 50 * time.Millisecond
	// RestartAllowance is how long the harness allows members it SIGKILLed
	// and started again to form a quorum: a JVM's start is bounded by no
	// rule (6.4–22.1 s measured here, docs/zookeeper.md), so this is the
	// harness's allowance on a shared two-core machine, not ZooKeeper's.
	RestartAllowance = 60 * time.Second
	// goZKRetryPause is go-zookeeper's pause after every server of its list
	// failed (conn.go connect: time.After(time.Second) on retryStart), and
	// goZKConnectTimeout its dial timeout (connectTimeout: 1 s).
	goZKRetryPause     = time.Second
	goZKConnectTimeout = time.Second
	// javaReconnect bounds how long after the heal a Java client (Curator,
	// Spring's) is connected again and answered: ClientCnxn tries a server
	// after a random pause of up to 1 s, answered within 1 s.
	javaReconnect = 2 * time.Second
)

// Rules are ZooKeeper's, Curator's and Spring Cloud Zookeeper's rules as
// the registry-neutral experiments' judges need them (experiment.Rules),
// for instances whose sessions were granted Session on an ensemble of
// Config; Which is the member a cut-off-member step acts on. Every band's
// basis names its rule and where it is in the source (rules.go holds the
// constants and their lines).
type Rules struct {
	Config  Config
	Session time.Duration
	Which   experiment.Which
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

// tick returns the ensemble's tickTime.
func (r Rules) tick() time.Duration { return r.Config.withDefaults().TickTime }

// electionBound is ElectionBound on the ensemble's timing.
func (r Rules) electionBound() time.Duration {
	c := r.Config.withDefaults()
	return ElectionBound(c.TickTime, c.InitLimit)
}

// RefreshFails: a policy caller reads through go-zookeeper. While the links
// hold their bytes its connection stays up and a read waits for its
// deadline, the one in flight at the cut included (it fails up to its
// deadline after the cut, so from right after it); when every member was
// killed the connection closes, go-zookeeper fails the queued reads once
// every server refused (flushUnsentRequests with ErrNoServer, conn.go
// connect), so the first refresh may fail at once.
func (r Rules) RefreshFails(how experiment.How, refresh, timeout time.Duration) (time.Duration, time.Duration, string) {
	if how.Kills() {
		return 0, refresh + timeout + slack,
			"the members' sockets close: go-zookeeper fails a queued read once every server refused (conn.go connect: flushUnsentRequests(ErrNoServer)), " +
				"or at its deadline: the next refresh (≤ refresh) fails within its deadline (+ 50 ms)"
	}
	return 0, refresh + timeout + slack,
		"the blackholed link keeps go-zookeeper's connection open and holds the read: a refresh in flight at the cut (started ≤ its deadline before) " +
			"or the next one (≤ refresh) fails at its deadline (+ 50 ms)"
}

// ClientWhileUnreachable: Curator's ServiceCache changes its list only on
// child events, never on SUSPENDED or LOST, so every call reaches a live
// instance; Spring Cloud LoadBalancer serves from its 35 s cache and, once
// that expires during the outage, every call asks ZooKeeper and fails. The
// cache's phase, set by the caller's first call, decides when it expires:
// anywhere in the outage's first 35 s. An outage no longer than that may
// fail every call or none (not judged); a longer one fails at least the
// calls after its first 35 s (springCacheBand).
func (r Rules) ClientWhileUnreachable(client string, _ experiment.How, d time.Duration) (experiment.Band, bool) {
	switch client {
	case ClientCurator:
		return experiment.Band{Lo: 0, Hi: 0, Basis: "ServiceCacheImpl changes its list only on CHILD_ADDED/UPDATED/REMOVED, never on SUSPENDED or LOST " +
			"(curator-x-discovery ServiceCacheImpl.java:160-172): the cache keeps every live instance"}, true
	case ClientSpring:
		return springCacheBand(d)
	}
	return experiment.Band{}, false
}

// springCacheSlack covers a call's deadline at the cache's expiry and the window's edges.
const springCacheSlack = time.Second

// springCacheBand is the failed share (%) of Spring Cloud LoadBalancer's calls over an outage
// of d: the list cached before it serves until the entry's 35 s ttl runs out, at most
// LoadBalancerCacheTTL into the outage; from then every call's discovery read fails (an empty
// list is never cached: each call asks again). At least (d − ttl − slack) / d fail, at most all.
// No band when d ≤ ttl + slack: either answer is possible.
func springCacheBand(d time.Duration) (experiment.Band, bool) {
	if d <= LoadBalancerCacheTTL+springCacheSlack {
		return experiment.Band{}, false
	}
	lo := 100 * (d - LoadBalancerCacheTTL - springCacheSlack).Seconds() / d.Seconds()
	return experiment.Band{Lo: math.Floor(lo*10) / 10, Hi: 100, Basis: fmt.Sprintf("the LoadBalancer's cached list serves until its %s ttl runs out "+
		"(LoadBalancerCacheProperties.java:42), at most %s into the %s outage (its phase is set by the caller's first call); then every "+
		"call's discovery read fails (ServiceDiscoveryImpl.queryForInstances, line 343) and an empty list is never cached "+
		"(CachingServiceInstanceListSupplier.java:65): at least (%s − %s − %s) / %s of the calls fail, at most all",
		LoadBalancerCacheTTL, LoadBalancerCacheTTL, d.Round(time.Millisecond), d.Round(time.Millisecond), LoadBalancerCacheTTL, springCacheSlack,
		d.Round(time.Millisecond))}, true
}

// ClientAfterCrash: a Curator ServiceCache cut off from the ensemble keeps
// the crashed instance (no child event reaches it), and RoundRobinStrategy
// sends it one call in n.
func (r Rules) ClientAfterCrash(client string, n int, rate float64, w time.Duration) (experiment.Band, bool) {
	if client != ClientCurator || n < 1 {
		return experiment.Band{}, false
	}
	share := rate * w.Seconds() / float64(n)
	return experiment.Band{Lo: math.Max(0, math.Floor(share)-2), Hi: math.Ceil(share) + 2,
		Basis: fmt.Sprintf("no child event reaches a cache cut off from the ensemble (ServiceCacheImpl.java:160-172): RoundRobinStrategy sends the dead "+
			"instance 1 call in %d (%.1f calls ± 2 at the crash's instant)", n, share)}, true
}

// Recovery: after the links heal, a policy caller's go-zookeeper client
// reconnects (a server every connect timeout, a 1 s pause after the whole
// list) and its next refresh answers; after a kill the members must first
// start again and elect, which no rule bounds (RestartAllowance). Curator's
// cache never lost its list; Spring's LoadBalancer asks ZooKeeper on every
// call while its list is empty, and answers once the Java client
// reconnected (ClientCnxn tries a server after a random pause of up to 1 s).
// When the cut may have outlasted the instances' sessions (lapsed), their
// nodes are gone until they register again, and the bound covers that.
func (r Rules) Recovery(c experiment.Caller, o experiment.Outage, refresh time.Duration) (time.Duration, string) {
	d, why := r.reconnected(c, o.How, refresh)
	if !r.lapsed(o) {
		return d, why
	}
	relist, relistWhy := r.Relisted(0, o.Spread)
	if c.Kind == experiment.RealClient && relist < javaReconnect {
		relist = javaReconnect // the reader itself must be connected again
	}
	lag, lagWhy := r.seesNode(c, refresh)
	if relist+lag <= d {
		return d, why
	}
	return relist + lag, fmt.Sprintf("the cut (%s) may outlast the instances' %s sessions (%s): the node is then deleted, and a reconnect "+
		"is told the session expired (ZooKeeperServer.reopenSession → revalidateSession → finishSessionInit(valid=false): timeout 0; "+
		"ClientCnxn.onConnected raises Expired); until its instance registers again a reader may list it gone: %s; then %s",
		o.Cut.Round(time.Millisecond), r.Session, r.RemovesSilent(o.How, o.Cut).Basis, relistWhy, lagWhy)
}

// lapsed reports whether the instances' sessions may have expired during
// o: the leader lives, and the cut is long enough by RemovesSilent's rule
// (a session timeout after the last ping, at most a third of it before
// the cut). Killed members expire nothing.
func (r Rules) lapsed(o experiment.Outage) bool {
	return !o.How.Kills() && o.Cut > 0 && r.RemovesSilent(o.How, o.Cut).Hi > 0
}

// seesNode is how long after an instance's node was created again a
// caller's list holds it.
func (r Rules) seesNode(c experiment.Caller, refresh time.Duration) (time.Duration, string) {
	switch {
	case c.Kind == experiment.PolicyCaller:
		return refresh + time.Second, "the caller's next refresh (≤ refresh) answers within 1 s"
	case c.Client == ClientCurator:
		return time.Second, "Curator, connected again within 2 s of the heal (ClientCnxn's random pause), has its PersistentWatcher re-add its watch on RECONNECTED and its cache rebuild (CuratorCacheImpl.rebuild: " +
			"a getData per node it held, NONODE removes it and ServiceCacheImpl drops the instance on CHILD_REMOVED); " +
			"the created node reaches it as NodeCreated, read and added (CHILD_ADDED) within 1 s"
	}
	return time.Second, "LoadBalancer asks ZooKeeper on every call while its list is empty, answered within 1 s"
}

// reconnected is the recovery bound when every session outlived the cut.
func (r Rules) reconnected(c experiment.Caller, how experiment.How, refresh time.Duration) (time.Duration, string) {
	restart, why := time.Duration(0), ""
	if how.Kills() {
		restart = RestartAllowance
		why = fmt.Sprintf(", once the restarted members formed a quorum (the harness allows %s for JVMs to start and elect: no rule bounds it)", RestartAllowance)
	}
	switch {
	case c.Kind == experiment.PolicyCaller:
		return refresh + goZKRetryPause + goZKConnectTimeout + time.Second + restart,
			"go-zookeeper reconnects (1 s dial timeout, a 1 s pause after every server failed: conn.go connect) and the next refresh (≤ refresh) answers within 1 s" + why
	case c.Client == ClientCurator:
		return 0, "the ServiceCache kept its list throughout"
	}
	return javaReconnect + restart, "the Java client reconnects within 1 s (ClientCnxn's random pause) and LoadBalancer asks ZooKeeper on every call while its list is empty, answered within 1 s" + why
}

// RemovesSilent: the leader expires a session it has heard nothing of for
// its timeout, on the next tick boundary (ExpiryQueue.roundToNextInterval,
// server/ExpiryQueue.java:53-55, 87), and deletes its ephemeral nodes. A
// client pings after a third of the timeout idle (ClientCnxn: readTimeout/2),
// so the last packet the leader heard came at most Session/3 before the cut.
// Killed members expire nothing, and a new leader tracks every session again
// with its full timeout (SessionTrackerImpl's constructor, server/
// SessionTrackerImpl.java:110-119).
func (r Rules) RemovesSilent(how experiment.How, d time.Duration) experiment.Band {
	if how.Kills() {
		return experiment.Band{Lo: 0, Hi: 0, Basis: "no leader, no expiry; the new leader tracks every session again with its full timeout (SessionTrackerImpl.java:110-119)"}
	}
	lo, hi := r.Session-r.Session/3, r.Session+r.tick()+time.Second
	basis := fmt.Sprintf("the leader expires a silent session %s after the last packet it heard (≤ %s before the cut: a ping every third of it), "+
		"on the next tick (ExpiryQueue.java:87), and deletes its node; 1 s more for the delete to commit", r.Session, (r.Session / 3).Round(time.Millisecond))
	switch {
	case d < lo-slack:
		return experiment.Band{Lo: 0, Hi: 0, Basis: basis}
	case d > hi:
		return experiment.Band{Lo: 1, Hi: 1, Basis: basis}
	}
	return experiment.Band{Lo: 0, Hi: 1, Basis: basis}
}

// MemberServes: a member answers reads from its own copy while it follows a
// leader (or leads); a write (a registration: an ephemeral node's create) is
// forwarded to the leader and committed by a quorum. A follower that hears
// nothing from its leader for syncLimit ticks (FollowerCutOff) goes LOOKING,
// a leader without a quorum of acks for syncLimit + 1 ticks (LeaderCutOff)
// too, and a LOOKING member refuses everything ("ZooKeeperServer not
// running", NIOServerCnxn.java:571-572). A follower whose leader was
// SIGKILLed sees the socket close and goes LOOKING at once.
func (r Rules) MemberServes(f experiment.FaultKind, role experiment.Role, op experiment.ProbeOp, since time.Duration) (experiment.Band, bool) {
	switch {
	case f == experiment.QuorumLoss && role == experiment.Survivor:
		return r.survivorServes(since), true
	case f == experiment.CutOffMember && role == experiment.CutOff:
		return r.cutOffServes(op, since), true
	case f == experiment.CutOffMember && role == experiment.Majority:
		return r.majorityServes(op, since), true
	}
	return experiment.Band{}, false
}

// survivorServes: the survivor of a quorum loss (a follower: the leader
// died) is LOOKING from the moment its leader's socket closed, and finds
// no quorum to elect with.
func (r Rules) survivorServes(since time.Duration) experiment.Band {
	basis := "its leader's socket closed: the follower goes LOOKING (Follower.java:122-127) and refuses every request " +
		"(NIOServerCnxn.java:571-572); one member of three is no quorum to elect"
	if since < time.Second {
		return experiment.Band{Lo: 0, Hi: 1, Basis: basis + "; the probe came within 1 s of the kill"}
	}
	return experiment.Band{Lo: 0, Hi: 0, Basis: basis}
}

// cutOffServes: the member cut off from its peers answers reads until it
// goes LOOKING; its writes wait for a quorum that cannot answer.
func (r Rules) cutOffServes(op experiment.ProbeOp, since time.Duration) experiment.Band {
	c := r.Config.withDefaults()
	cut, rule := FollowerCutOff(c.TickTime, c.SyncLimit), "a follower's read timeout of syncLimit ticks (Learner.java:815)"
	if r.Which == experiment.Leader {
		cut, rule = LeaderCutOff(c.TickTime, c.SyncLimit), "a leader's check for a quorum of acks within syncLimit ticks (Leader.java:778, 832-848)"
	}
	if op == experiment.Register {
		return experiment.Band{Lo: 0, Hi: 0, Basis: "a registration is a write the leader must commit with a quorum: none can ack across the cut, " +
			"and the probe's deadline (2 s) ends it"}
	}
	return r.servesUntil(since, cut, rule)
}

// servesUntil is a read that is served until cut after the fault (minus
// half a tick: the leader pings every half tick, Leader.java:778, 844),
// refused after.
func (r Rules) servesUntil(since, cut time.Duration, rule string) experiment.Band {
	basis := fmt.Sprintf("reads are served from the member's copy until it goes LOOKING, %s after the cut (%s; the last ping up to half a tick before), "+
		"then refused while the cut lasts (NIOServerCnxn.java:571-572)", cut, rule)
	switch {
	case r.probeEnds(since) < cut-r.tick()/2:
		return experiment.Band{Lo: 1, Hi: 1, Basis: basis}
	case since > cut+time.Second:
		return experiment.Band{Lo: 0, Hi: 0, Basis: basis}
	}
	return experiment.Band{Lo: 0, Hi: 1, Basis: basis + "; the probe came near that instant"}
}

// probeEnds is when a probe started since after the fault ends at the latest.
func (Rules) probeEnds(since time.Duration) time.Duration { return since + 2*time.Second }

// majorityServes: with a follower cut off, the leader and the other follower
// are a quorum and serve everything; with the leader cut off, the followers
// serve reads until their read timeout, then elect (ElectionBound), and
// their writes wait for the cut leader until then.
func (r Rules) majorityServes(op experiment.ProbeOp, since time.Duration) experiment.Band {
	if r.Which != experiment.Leader {
		return experiment.Band{Lo: 1, Hi: 1, Basis: "the leader and the other follower are 2 of 3, a quorum: they read and commit throughout"}
	}
	c := r.Config.withDefaults()
	cut := FollowerCutOff(c.TickTime, c.SyncLimit)
	elected := cut + r.electionBound() + time.Second
	basis := fmt.Sprintf("the followers read from their copy until their read timeout (%s, Learner.java:815), then elect a leader among them "+
		"(≤ %s, Leader.java:1532, 1643); until then a write waits for the cut leader", cut, r.electionBound())
	switch {
	case since >= elected:
		return experiment.Band{Lo: 1, Hi: 1, Basis: basis}
	case op == experiment.Register && r.probeEnds(since) < cut-r.tick()/2:
		return experiment.Band{Lo: 0, Hi: 0, Basis: basis}
	case op == experiment.List && r.probeEnds(since) < cut-r.tick()/2:
		return experiment.Band{Lo: 1, Hi: 1, Basis: basis}
	}
	return experiment.Band{Lo: 0, Hi: 1, Basis: basis + "; the probe came while they might be electing"}
}

// Relisted: a registrant's client reconnects once the registry returns (a
// server every dial timeout, a 1 s pause after the whole list), is told its
// session expired, opens a new one and creates its node again, as Curator's
// ServiceDiscoveryImpl does on RECONNECTED (lines 71-75, 402).
func (r Rules) Relisted(_ int, spread time.Duration) (time.Duration, string) {
	d := spread + goZKRetryPause + goZKConnectTimeout + 2*time.Second
	return d, fmt.Sprintf("each registrant reconnects (1 s dial timeout, 1 s pause after the whole list), opens a new session and creates its node: "+
		"spread (%s) + 2 s + 2 s for the session and the create", spread)
}

// RejoinWindow: while the links hold their bytes, a registrant's
// go-zookeeper client gives up its connection after its read timeout and
// dials again through the link, which accepts it and holds its connect
// request (authenticate waits ten read timeouts: conn.go authenticate).
// When the links return, that request reaches a member at once, which
// answers that the session expired; the client opens a new session and the
// registrant creates its node after its seeded delay in [0, spread). After a
// kill, the sessions outlive the members (a new leader tracks them again,
// SessionTrackerImpl.java:110-119): nothing to register again.
func (r Rules) RejoinWindow(_ experiment.How, spread time.Duration) (time.Duration, time.Duration, string) {
	return spread + 2*time.Second, spread, fmt.Sprintf("every registrant's connect request is held by its link and reaches a member when the link returns "+
		"(go-zookeeper waits ten read timeouts for its answer: conn.go authenticate): the session expired, a new one, and the node created after the delay "+
		"in [0, spread %s) (+ 2 s for the answer, the new session and the create)", spread)
}

// MemberReads: a member keeps answering reads from its own copy until it
// learns it has no quorum — a follower after syncLimit × tickTime without
// its leader (FollowerCutOff), a leader after syncLimit + 1 ticks without a
// quorum of acks (LeaderCutOff) — and then refuses every request, reads
// included, read-only mode being off (ReadOnlyModeDefault); a member of the
// majority answers throughout. Whether a client's read fails depends on the
// member its session is on and on when it reads: some reads fail.
func (r Rules) MemberReads(f experiment.FaultKind) (experiment.Reads, string) {
	c := r.Config.withDefaults()
	basis := fmt.Sprintf("a member without quorum answers reads from its copy for up to syncLimit × tickTime (%s, Learner.java:815) "+
		"or syncLimit + 1 ticks as leader (%s, Leader.java:832-848), then refuses them (read-only mode off, QuorumPeer.java:1473); "+
		"a member of the majority answers: a read fails or not by the member its session is on",
		FollowerCutOff(c.TickTime, c.SyncLimit), LeaderCutOff(c.TickTime, c.SyncLimit))
	if f == experiment.QuorumLoss {
		basis = "the survivor has no quorum: " + basis
	}
	return experiment.ReadsSome, basis
}

// MemberRemoves: no rule here for a member's client packets dropped (this
// world does not make member-unreachable).
func (Rules) MemberRemoves(experiment.FaultKind, time.Duration) (experiment.Band, bool) {
	return experiment.Band{}, false
}
