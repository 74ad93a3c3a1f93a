package zookeeper

import "time"

// The rules below are read in the source of the versions the harness runs:
// ZooKeeper 3.9.5 (tag release-3.9.5; paths under
// zookeeper-server/src/main/java/org/apache/zookeeper/), Curator 5.9.0 (tag
// apache-curator-5.9.0), Spring Cloud Zookeeper 5.0.2 (tag v5.0.2) and
// Spring Cloud Commons' LoadBalancer (tag v5.0.2; the callers resolve 5.0.4
// from spring-cloud-dependencies 2025.1.4). docs/zookeeper.md explains them.

// Server timing: tickTime, initLimit, syncLimit.
const (
	// DefaultTickTime is ZooKeeper's tickTime when zoo.cfg gives none:
	// ZooKeeperServer.DEFAULT_TICK_TIME = 3000 ms (server/ZooKeeperServer.java:198).
	DefaultTickTime = 3000 * time.Millisecond
	// SampleTickTime, SampleInitLimit and SampleSyncLimit are the values of the
	// conf/zoo_sample.cfg that ZooKeeper ships (tickTime=2000, initLimit=10,
	// syncLimit=5), the harness's defaults. initLimit and syncLimit have no
	// default in the code: a quorum config without them is refused ("initLimit
	// is not set", server/quorum/QuorumPeerConfig.java:785-790).
	SampleTickTime  = 2000 * time.Millisecond
	SampleInitLimit = 10
	SampleSyncLimit = 5
)

// Session timeout negotiation.
const (
	// MinSessionTicks and MaxSessionTicks bound a session timeout when zoo.cfg
	// sets no minSessionTimeout / maxSessionTimeout: 2 and 20 ticks
	// (server/quorum/QuorumPeerConfig.java:470-471). The server clamps the
	// client's requested timeout into [min, max] (ZooKeeperServer.java:1520-1527).
	MinSessionTicks = 2
	MaxSessionTicks = 20
	// ArticleSessionTimeout is the session timeout the instances ask for: article
	// 47's 20 s lease, the ZooKeeper session playing the lease's role.
	ArticleSessionTimeout = 20 * time.Second
)

// NegotiateSessionTimeout returns the session timeout the server grants a
// client asking for requested: clamped into [lo, hi], where a zero lo or hi
// takes ZooKeeper's default of 2 or 20 ticks (ZooKeeperServer.java:1520-1527,
// QuorumPeerConfig.java:470-471). Both ends are in whole milliseconds.
func NegotiateSessionTimeout(requested, tick, lo, hi time.Duration) time.Duration {
	if lo == 0 {
		lo = MinSessionTicks * tick
	}
	if hi == 0 {
		hi = MaxSessionTicks * tick
	}
	return min(max(requested.Truncate(time.Millisecond), lo), hi)
}

// Client-side session rules (ClientCnxn.java).
const (
	// ReadTimeoutNum / ReadTimeoutDen: a client that has heard nothing from its
	// server for 2/3 of the negotiated session timeout drops the connection and
	// tries the next server (readTimeout = negotiatedSessionTimeout * 2 / 3,
	// ClientCnxn.java:1430); it pings after half of that idle (ClientCnxn.java:1263).
	ReadTimeoutNum, ReadTimeoutDen = 2, 3
	// ExpirationNum / ExpirationDen: a 3.9 client that has heard from no server
	// for 4/3 of the negotiated timeout declares its own session expired and
	// stops reconnecting (expirationTimeout = negotiatedSessionTimeout * 4 / 3,
	// ClientCnxn.java:1431 and 1244-1252; also in 3.9.3, the Curator callers'
	// client). The server expires the session after the timeout itself
	// (SessionTrackerImpl's ExpiryQueue ticks every tickTime,
	// server/SessionTrackerImpl.java:113), deleting its ephemeral nodes; a client
	// that reconnects later is told "session ... has expired" (ClientCnxn.java:1420).
	ExpirationNum, ExpirationDen = 4, 3
)

// A learner's connection to its new leader (server/quorum/Learner.java).
const (
	// LearnerConnectTries and LearnerConnectRetryDelay: a follower that has
	// decided on a leader connects to the leader's quorum port up to 5 times
	// (LeaderConnector.connectToLeader, Learner.java:413), 100 ms apart
	// (zookeeper.leaderConnectDelayDuringRetryMs, Learner.java:122, 457),
	// within initLimit ticks; only then does it give up (Follower.java:127)
	// and vote again. The leader binds that port only once it has decided
	// too (new Leader, QuorumPeer.java:1567, Leader.java:346), which may be
	// after a follower decided: the first tries may be refused. Until a
	// quorum has connected, the leader waits initLimit ticks for their
	// epochs (ElectionBound) and no member serves.
	LearnerConnectTries      = 5
	LearnerConnectRetryDelay = 100 * time.Millisecond
)

// Leader election (server/quorum/FastLeaderElection.java).
const (
	// FinalizeWait is how long a peer waits, once it has a quorum for its vote,
	// for a better vote before deciding: finalizeWait = 200 ms (line 62, used
	// at line 1050).
	FinalizeWait = 200 * time.Millisecond
	// MinNotificationInterval is the first wait for a notification when none
	// came (equal to finalizeWait, line 76); it doubles on every empty wait up
	// to MaxNotificationInterval = 60 s (lines 70, 940, 980).
	MinNotificationInterval = FinalizeWait
	MaxNotificationInterval = 60 * time.Second
)

// ElectionBound is the longest a successful election can take once the
// survivors vote for the same peer: the new leader waits at most initLimit ×
// tickTime for a quorum's epoch and NEWLEADER acks, else it gives up and the
// peers vote again (Leader.waitForEpochAck / waitForNewLeaderAck,
// server/quorum/Leader.java:1532 and 1643, getInitLimit() * getTickTime()),
// plus the votes' own finalizeWait. Detection is immediate after a SIGKILL (the
// followers' sockets to the leader close); after a SIGSTOP it takes up to
// FollowerCutOff.
func ElectionBound(tick time.Duration, initLimit int) time.Duration {
	return time.Duration(initLimit)*tick + 2*FinalizeWait
}

// FollowerCutOff is how long a follower that hears nothing from its leader
// keeps serving: its socket to the leader has a read timeout of syncLimit ×
// tickTime once synced (server/quorum/Learner.java:815); the read fails, the
// follow loop ends (server/quorum/Follower.java:122-127), the follower shuts
// its ZooKeeperServer down and re-enters LOOKING (server/quorum/QuorumPeer.java:
// 1551-1562). From then on it refuses every client request, reads included
// ("ZooKeeperServer not running", server/NIOServerCnxn.java:571-572; its 4lw
// answer "not currently serving requests"), unless read-only mode was enabled
// (the system property readonlymode.enabled, false by default,
// QuorumPeer.java:1473; the harness never enables it).
func FollowerCutOff(tick time.Duration, syncLimit int) time.Duration {
	return time.Duration(syncLimit) * tick
}

// LeaderCutOff is how long a leader that hears from no quorum keeps leading:
// it checks every tickTime/2 (Leader.java:778) that a quorum of learners acked
// within syncLimit ticks (LearnerHandler.synced, LearnerHandler.java:1113;
// deadline tick + syncLimit, Leader.java:1724), else it shuts down ("Not
// sufficient followers synced", Leader.java:832-848) and goes LOOKING. The
// check skips every other half tick, so the bound is syncLimit ticks plus one.
func LeaderCutOff(tick time.Duration, syncLimit int) time.Duration {
	return time.Duration(syncLimit+1) * tick
}

// ReadOnlyModeDefault is readonlymode.enabled's default: a partitioned member
// serves no reads (QuorumPeer.java:1473, Boolean.getBoolean).
const ReadOnlyModeDefault = false

// Curator (curator-framework 5.9.0) defaults and connection states.
const (
	// CuratorSessionTimeout and CuratorConnectionTimeout are
	// CuratorFrameworkFactory's defaults: 60 s and 15 s (system properties
	// curator-default-session-timeout / -connection-timeout,
	// CuratorFrameworkFactory.java:60-63).
	CuratorSessionTimeout    = 60 * time.Second
	CuratorConnectionTimeout = 15 * time.Second
	// CuratorSimulatedExpirationPercent is the builder's default
	// simulatedSessionExpirationPercent, 100 (CuratorFrameworkFactory.java:177):
	// a client SUSPENDED for 100 % of the last negotiated session timeout
	// injects a session expiration itself, so LOST follows SUSPENDED after one
	// session timeout even when no server can tell it the session expired
	// ("Session timeout has elapsed while SUSPENDED. Injecting a session
	// expiration", state/ConnectionStateManager.java:240-300).
	CuratorSimulatedExpirationPercent = 100
)

// ConnState is a Curator connection state as a caller reports it
// (org.apache.curator.framework.state.ConnectionState). ZooKeeper's
// Disconnected event gives SUSPENDED, Expired gives LOST, SyncConnected after
// either gives RECONNECTED (imps/CuratorFrameworkImpl.java:647-660).
type ConnState string

// The Curator connection states.
const (
	Connected   ConnState = "CONNECTED"
	Suspended   ConnState = "SUSPENDED"
	Lost        ConnState = "LOST"
	Reconnected ConnState = "RECONNECTED"
	ReadOnly    ConnState = "READ_ONLY"
)

// Curator service discovery (curator-x-discovery 5.9.0) and Spring Cloud.
const (
	// ServiceCacheKeepsListWhileDisconnected: ServiceCacheImpl changes its list
	// only on CHILD_ADDED, CHILD_UPDATED and CHILD_REMOVED (details/
	// ServiceCacheImpl.java:160-172); connection events (SUSPENDED, LOST) leave
	// it as it was, and getInstances returns it (line 92). On every
	// (re)connection its CuratorCache resets its persistent watch and rebuilds
	// from the server (recipes/watch/PersistentWatcher.java:51-55,
	// recipes/cache/CuratorCacheImpl.java:137-149), removing the children that
	// vanished meanwhile (removeStorage, line 243): an expired instance leaves
	// the cache only once the caller reconnects.
	ServiceCacheKeepsListWhileDisconnected = true
	// ServiceDiscoveryReregisters: ServiceDiscoveryImpl registers its own
	// instances again on every CONNECTED or RECONNECTED (lines 71-75,
	// reRegisterServices line 402), as ephemeral nodes (lines 214-223).
	ServiceDiscoveryReregisters = true
	// DefaultBasePath is Spring Cloud Zookeeper's discovery root, "/services"
	// (ZookeeperDiscoveryProperties.java:53), used by every instance here.
	DefaultBasePath = "/services"
	// SpringSessionTimeout and SpringConnectionTimeout are Spring Cloud
	// Zookeeper's defaults, 60 s and 15 s (ZookeeperProperties.java:84, 90),
	// with ExponentialBackoffRetry(50 ms, 10 retries, 500 ms max)
	// (ZookeeperProperties.java:53-63, CuratorFactory.java:84).
	SpringSessionTimeout    = 60 * time.Second
	SpringConnectionTimeout = 15 * time.Second
	// LoadBalancerCacheTTL is Spring Cloud LoadBalancer's instance-list cache
	// ttl, 35 s (cache/LoadBalancerCacheProperties.java:42). Spring Cloud
	// Zookeeper's DiscoveryClient has no cache of its own: every getInstances
	// reads the children from ZooKeeper (ZookeeperDiscoveryClient.getInstances ->
	// ServiceDiscoveryImpl.queryForInstances, line 343), so between cache
	// refreshes a caller serves from LoadBalancer's copy; a read that fails
	// becomes an empty list (DiscoveryClientServiceInstanceListSupplier.java:
	// 67-74), an empty list is never cached (CachingServiceInstanceListSupplier.java:
	// 65), and every call asks ZooKeeper again until one read succeeds.
	LoadBalancerCacheTTL = 35 * time.Second
	// ServiceDiscoveryTimeout is LoadBalancer's bound on one discovery read,
	// spring.cloud.loadbalancer.service-discovery.timeout, 30 s
	// (DiscoveryClientServiceInstanceListSupplier.java:56).
	ServiceDiscoveryTimeout = 30 * time.Second
)

// The versions the world runs (the JVM pieces' poms pin them:
// jvm/projects/zookeeper-server and zookeeper-callers; a test reads them).
const (
	// ServerVersion is the ZooKeeper server's version.
	ServerVersion = "3.9.5"
	// CuratorVersion is curator-x-discovery's version.
	CuratorVersion = "5.9.0"
	// SpringCloudZookeeperVersion is spring-cloud-starter-zookeeper-discovery's
	// version (from spring-cloud-dependencies 2025.1.4).
	SpringCloudZookeeperVersion = "5.0.2"
)
