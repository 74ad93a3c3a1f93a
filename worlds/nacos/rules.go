package nacos

import "time"

// The rules of the real Nacos server and its clients the bands follow, read in alibaba/nacos at
// 486e198 (3.1.0; the constants checked in the 3.1.0-bugfix jars that run), nacos-client 3.1.1
// and nacos-sdk-go v2.3.2 (docs/nacos-real.md). Paths are alibaba/nacos's unless they say
// otherwise.
//
// How an instance leaves: an instance registered over gRPC (nacos-sdk-go v2, nacos-client 2.x
// and 3.x) is ephemeral and belongs to its client's connection — no heartbeat timeout applies
// to it. When the connection ends (the client closes it, or its process dies and the socket
// closes) ConnectionManager.unregister (core/.../remote/ConnectionManager.java:147–160) tells
// the naming module, whose ConnectionBasedClientManager.clientDisConnected
// (naming/.../client/manager/impl/ConnectionBasedClientManager.java:93–110) removes the
// client's instances and subscriptions at once. A connection that stays open but silent (a
// blackholed link) is ended only by the connection ejector: KeepAliveTime, EjectProbeTimeout,
// EjectEvery below. The 1.x rule — an instance whose HTTP beats stop is unhealthy after 15 s
// and deleted after 30 s (api/.../common/Constants.java:185–187 DEFAULT_HEART_BEAT_TIMEOUT,
// DEFAULT_IP_DELETE_TIMEOUT; naming/.../healthcheck/heartbeat/UnhealthyInstanceChecker.java:54,
// ExpiredInstanceChecker.java:57) — applies only to instances registered over HTTP
// (IpPortBasedClient), which this world does not make.
const (
	// KeepAliveTime: the connection ejector picks a connection whose last request is this old
	// (core/.../remote/RuntimeConnectionEjector.java:32 KEEP_ALIVE_TIME;
	// NacosRuntimeConnectionEjector.java:72).
	KeepAliveTime = 20 * time.Second
	// EjectProbeTimeout: it sends each picked connection a ClientDetectionRequest with this timeout
	// and waits up to this long for the answers; a connection that did not answer is
	// unregistered with its instances and subscriptions (NacosRuntimeConnectionEjector.java:96,
	// 125, 130).
	EjectProbeTimeout = 5 * time.Second
	// EjectEvery: the ejector runs with this fixed delay after the end of its previous run
	// (ConnectionManager.java:249–252, scheduleWithFixedDelay 1000, 3000 ms).
	EjectEvery = 3 * time.Second
	// ClientKeepAlive: every client looks at its connection this often and sends a health
	// check when it was idle this long (nacos-client connectionKeepAlive 5000 ms, RpcClient's
	// health-check loop; nacos-sdk-go KEEP_ALIVE_TIME 5 s, RpcClient.healthCheck). A connection
	// that sends nothing else is silent at most this long once its checks are in their rhythm
	// (2 × ClientKeepAlive after the client started: the first look finds the registration
	// fresh and skips).
	ClientKeepAlive = 5 * time.Second
	// PushDelay: a change of a service is pushed this long after it, and changes within it
	// merge (naming PushConstants, PushDelayTask.merge); the list the server answers
	// (ServiceStorage) is refreshed by that push task.
	PushDelay = 500 * time.Millisecond
	// EngineInterval: the delay-task engine looks for a task whose delay has passed this often
	// (common NacosDelayTaskExecuteEngine, processInterval 100 ms, scheduleWithFixedDelay), so a
	// push task runs up to this long after its PushDelay.
	EngineInterval = 100 * time.Millisecond
	// ServerCheckTimeout: each connection attempt waits this long for the answer to its
	// ServerCheckRequest (nacos-client DefaultGrpcClientConfig serverCheckTimeOut 3000 ms;
	// nacos-sdk-go serverCheck with DEFAULT_TIMEOUT_MILLS 3000 ms).
	ServerCheckTimeout = 3 * time.Second
	// ReconnectSleep: the longest sleep of a client's reconnect loop between two attempts,
	// min(turns + 1, 50) × 100 ms (nacos-client RpcClient.reconnect; nacos-sdk-go min(turns,
	// 50) × 100 ms); an attempt in flight at the heal is answered then (the blackhole held its
	// bytes).
	ReconnectSleep = 5 * time.Second
	// SDKSetupSleep: a new nacos-sdk-go connection sends its ConnectionSetupRequest and sleeps
	// this long before the client counts it connected (GrpcClient.sendConnectionSetupRequest);
	// then ConnectionEventListener.redoRegisterEachService registers every cached instance
	// again.
	SDKSetupSleep = 100 * time.Millisecond
)

// The slacks of the bands, for scheduling and delivery on a shared 2-core machine (a band's
// basis names the one it uses).
const (
	// RuleSlack widens the bounds of the server's removal rules.
	RuleSlack = 500 * time.Millisecond
	// LowSlack is how much earlier than the rule's earliest moment an ejection may come: a
	// health check's round trip on top of its 5 s.
	LowSlack = 250 * time.Millisecond
	// DeliverSlack is how long a push may take to reach a client after the push delay.
	DeliverSlack = 500 * time.Millisecond
)

// NoRemovalBelow is the longest loss that removes no instance whose connection was silent at
// most silentAtCut when the loss began: probed KeepAliveTime after its last request, ejected
// EjectProbeTimeout later (− LowSlack); a heal before that lets the held probe through and the client
// answers in time.
func NoRemovalBelow(silentAtCut time.Duration) time.Duration {
	return KeepAliveTime - silentAtCut + EjectProbeTimeout - LowSlack
}

// EmptyBy is the loss beyond which every instance's connection is ejected: the last one to be
// silent KeepAliveTime may cross it just after a run began that then waits EjectProbeTimeout on the
// probes it sent, then comes EjectEvery later and waits EjectProbeTimeout on its own probe.
func EmptyBy() time.Duration {
	return KeepAliveTime + EjectProbeTimeout + EjectEvery + EjectProbeTimeout + RuleSlack
}

// RelistBy is how long after its link's heal an instance is listed again at the latest: the
// client's reconnect loop sleeps at most ReconnectSleep and its next attempt waits at most
// ServerCheckTimeout for the server check, then SDKSetupSleep, the redo's RegisterInstance,
// and the push delay after which the answered list is refreshed, + RuleSlack for the round
// trips.
func RelistBy() time.Duration {
	return ReconnectSleep + ServerCheckTimeout + SDKSetupSleep + PushDelay + RuleSlack
}
