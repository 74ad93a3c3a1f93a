package nacosincident

import (
	"time"

	"sdchaos/worlds/nacos"
)

// The rules of the real Nacos server and clients the bands follow, kept with
// their sources in worlds/nacos/rules.go (read in
// alibaba/nacos at 486e198, 3.1.0, the constants checked with javap in the
// 3.1.0-bugfix jars that run; nacos-client 3.1.1; nacos-sdk-go v2.3.2;
// Spring Cloud LoadBalancer 5.0.4: docs/nacos-real.md).
const (
	// keepAliveTime: the connection ejector picks a connection whose last
	// request is this old (RuntimeConnectionEjector.KEEP_ALIVE_TIME).
	keepAliveTime = nacos.KeepAliveTime
	// ejectProbe: it sends each a ClientDetectionRequest with this timeout
	// and waits up to this long for the answers; a connection that did not
	// answer is unregistered with its instances and subscriptions
	// (NacosRuntimeConnectionEjector, ConnectionBasedClientManager).
	ejectProbe = nacos.EjectProbeTimeout
	// ejectEvery: the ejector runs with this fixed delay after the end of
	// its previous run (ConnectionManager.start).
	ejectEvery = nacos.EjectEvery
	// clientKeepAlive: every client looks at its connection this often and
	// sends a health check when it was idle this long (nacos-client
	// connectionKeepAlive 5000 ms, RpcClient's health-check loop; nacos-sdk-go
	// KEEP_ALIVE_TIME 5 s, RpcClient.healthCheck). A connection that sends
	// nothing else is silent at most this long (the instances' registrants,
	// which send nothing but health checks after registering, more than 30 s
	// before the fault); one that sent a request between two looks skips
	// the next health check and may be silent up to twice this long (the
	// callers, whose setup requests come shortly before time zero).
	clientKeepAlive = nacos.ClientKeepAlive
	// pushDelay: a change of a service is pushed this long after it, and
	// changes within it merge (PushConstants, PushDelayTask.merge); the
	// list the server answers (ServiceStorage) is refreshed by that push task.
	pushDelay = nacos.PushDelay
	// lbCacheTTL: Spring Cloud LoadBalancer keeps a service's list this long
	// (LoadBalancerCacheProperties); an empty cached list is a miss
	// (CachingServiceInstanceListSupplier), so each call then reads the
	// discovery client again.
	lbCacheTTL = 35 * time.Second
	// protectedRead: with push-empty protection on, the read right after a
	// reconnect (NacosNamingService.tryToSubscribe, the cached service no
	// longer marked subscribed) hands the caller the server's raw answer:
	// one call, and the sends concurrent with it (rate × this), may take an
	// empty answer that the cache ignores.
	protectedRead = 50 * time.Millisecond
)

// The slacks of the bands, for scheduling and delivery on a shared 2-core
// machine (a band's basis names the one it uses).
const (
	// ruleSlack widens the bounds of the server's removal rules.
	ruleSlack = nacos.RuleSlack
	// lowSlack is how much earlier than the rule's earliest moment an
	// ejection may come: a health check's round trip on top of its 5 s.
	lowSlack = nacos.LowSlack
	// deliverSlack is how long a push may take to reach a client after
	// the push delay.
	deliverSlack = nacos.DeliverSlack
)

// noEjectBelow is the longest loss that ejects no connection: a caller's
// connection was silent at most 2 × clientKeepAlive when the loss began,
// so it is probed no earlier than keepAliveTime − 2 × clientKeepAlive into
// the loss and ejected no earlier than ejectProbe later; a heal before that
// lets the held probe through and the client answers in time.
func noEjectBelow() time.Duration { return keepAliveTime - 2*clientKeepAlive + ejectProbe - lowSlack }

// noRemovalBelow is the longest loss that removes no instance: an
// instance's connection was silent at most clientKeepAlive when the loss
// began (its registrant sends nothing but health checks).
func noRemovalBelow() time.Duration { return keepAliveTime - clientKeepAlive + ejectProbe - lowSlack }

// ejectBy is the loss beyond which some connection is ejected: the first
// connection to be silent keepAliveTime is probed at the ejector's next
// run (within ejectEvery: no run before it was probing) and ejected
// ejectProbe later.
func ejectBy() time.Duration { return keepAliveTime + ejectEvery + ejectProbe + ruleSlack }

// emptyBy is the loss beyond which every instance's connection is ejected:
// the last one to be silent keepAliveTime may cross it just after a run
// began that then waits ejectProbe on the probes it sent (to callers'
// connections that crossed earlier), then comes ejectEvery later and waits
// ejectProbe on its own probe.
func emptyBy() time.Duration { return keepAliveTime + ejectProbe + ejectEvery + ejectProbe + ruleSlack }

// emptyListedBy is how long after the loss began the server's answer may
// list no instance: emptyBy, plus the push delay after which the answered
// list is refreshed.
func emptyListedBy() time.Duration { return emptyBy() + pushDelay }

// emptiedAt is when, after an empty-registry fault begins, an unprotected
// client's list is empty at the latest: the push of the empty list comes
// pushDelay after the deregistration and reaches the client within
// deliverSlack.
func emptiedAt() time.Duration { return pushDelay + deliverSlack }

// refilledBy is when, after the instances register again, every client's
// list holds them again at the latest (the push after the re-registration).
func refilledBy() time.Duration { return pushDelay + deliverSlack }

// springFirstBy is how long after an empty-registry fault begins Spring's
// first "No instances available" comes at the latest: LoadBalancer's cache
// entry, written before the push of the empty list reached the client,
// expires within lbCacheTTL of that push, and the next call reads the empty
// list.
func springFirstBy() time.Duration { return emptiedAt() + lbCacheTTL + ruleSlack }

// The clients' rules when one starts while the server is unreachable (a
// restart inside the blackhole; nacos-client 3.1.1, nacos-sdk-go v2.3.2).
const (
	// serverCheckTimeout: each start-up connection attempt waits this long
	// for the answer to its ServerCheckRequest, which the blackhole holds
	// (nacos-client DefaultGrpcClientConfig serverCheckTimeOut 3000 ms;
	// nacos-sdk-go serverCheck with DEFAULT_TIMEOUT_MILLS 3000 ms).
	serverCheckTimeout = nacos.ServerCheckTimeout
	// javaStartupConnects: nacos-client's RpcClient.start tries retryTimes
	// (3) + 1 connections before it starts without one (its reconnect
	// loop then goes on in the background); the NamingService's
	// constructor waits for them.
	javaStartupConnects = 4
	// goStartupConnects: nacos-sdk-go's RpcClient.Start tries
	// REQUEST_DOMAIN_RETRY_TIME (3) connections; NewNamingClient waits.
	goStartupConnects = 3
	// requestTries: RpcClient.request tries a request retryTimes (3) + 1
	// times, sleeping 100 ms after each try that finds no connection
	// (nacos-client; nacos-sdk-go: 3 tries).
	requestTries = 4
	// subscribeRetry: a read that must subscribe while the client has no
	// connection fails once RpcClient.request's tries are spent — 4 (nacos-
	// client, retryTimes + 1) or 3 (nacos-sdk-go) tries 100 ms apart — so a
	// call due this long before the heal may already be answered after it.
	subscribeRetry = 500 * time.Millisecond
	// reconnectSleep: the longest sleep of a client's reconnect loop
	// between two attempts, min(turns + 1, 50) × 100 ms (nacos-client
	// RpcClient.reconnect; nacos-sdk-go min(turns, 50) × 100 ms); an
	// attempt in flight at the heal is answered then (the blackhole held
	// its bytes), so a client that had no connection has one at most this
	// long after the heal.
	reconnectSleep = nacos.ReconnectSleep
	// restartRoom is how much of the loss --restart-at must leave: a Java
	// client's start-up attempts (javaStartup) and 3 s for its JVM.
	restartRoom = javaStartupConnects*serverCheckTimeout + 3*time.Second
)

// javaStartup is how long a nacos-client built while the server is
// unreachable spends in its start-up connection attempts.
func javaStartup() time.Duration { return javaStartupConnects * serverCheckTimeout }

// goStartup is the same for nacos-sdk-go.
func goStartup() time.Duration { return goStartupConnects * serverCheckTimeout }
