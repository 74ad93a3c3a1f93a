package nacos

import (
	"fmt"
	"time"

	"sdchaos/experiment"
)

// The rules of a Nacos cluster under member faults, read in alibaba/nacos at 486e198 (paths
// under naming/src/main/java/com/alibaba/nacos/naming unless they say otherwise).
//
// Ephemeral instances are Distro's (AP): no leader, no quorum. A gRPC client's instances belong
// to the member holding its connection: the client is native there, and that member is
// responsible for it (core/v2/client/manager/impl/ConnectionBasedClientManager.java:130-131
// isResponsibleClient); it registers the instance in its own memory
// (core/v2/service/impl/EphemeralClientOperationServiceImpl.java:56 registerInstance) and syncs
// the client to every peer afterwards (consistency/ephemeral/distro/v2/
// DistroClientDataProcessor.java:115-125 syncToAllServer → DistroProtocol.sync, retried while a
// peer cannot be reached). Every member answers a read from its own memory: its native clients
// and the copies Distro gave it (remote/rpc/handler/ServiceQueryRequestHandler.java:61, the open
// API's InstanceOpenApiController.list, both over ServiceStorage). A copy is kept while its
// responsible member verifies it (every 5 s, DistroVerifyTimedTask) and expires ClientExpired
// after the last verify (core/v2/client/impl/ConnectionBasedClient.java:74-75 isExpire); nothing
// else removes it when its member goes (naming reacts to a member change only in DistroMapper,
// which places HTTP clients). Naming's status needs the JRaft leaders only in raft strict mode
// (core/.../distributed/raft/JRaftServer.java:523-531 isReady; strict mode off by default), so
// a member alone stays UP (cluster/ServerStatusManager.java isReady).

// ClientExpired: a copy of another member's client is dropped this long after its last verify
// (constants/ClientConstants.java:44 DEFAULT_CLIENT_EXPIRED_TIME, nacos.naming.client.expired.time).
const ClientExpired = 3 * time.Minute

// distroRule says how a member serves ephemeral instances.
const distroRule = "Distro (AP, no leader, no quorum): a member registers the instance of a gRPC client connected to it itself " +
	"(ConnectionBasedClientManager.isResponsibleClient, EphemeralClientOperationServiceImpl.registerInstance) and syncs it to its peers afterwards " +
	"(DistroClientDataProcessor.syncToAllServer); every member answers a read from its own memory (ServiceQueryRequestHandler, " +
	"InstanceOpenApiController.list over ServiceStorage); naming stays UP without JRaft leaders (JRaftServer.isReady, raft strict mode off)"

// keepsCopies reports whether every member's copies of the others' clients outlive the longest
// member fault (their expiry after ClientExpired without a verify).
func (r Rules) keepsCopies() bool { return r.MemberFault <= ClientExpired }

// copiesRule says how long a member keeps the others' clients.
func (r Rules) copiesRule() string {
	return fmt.Sprintf("a member keeps its copy of another member's client %s after that member's last verify (ConnectionBasedClient.isExpire, "+
		"ClientConstants.DEFAULT_CLIENT_EXPIRED_TIME), longer than the fault (%s)", ClientExpired, r.MemberFault)
}

// MemberServes: every live member answers a list and registers (Distro, AP), alone or cut off
// as well as with its peers; a quorum loss has no majority side (its survivor is the
// Survivor role); a standalone server has no members.
func (r Rules) MemberServes(f experiment.FaultKind, role experiment.Role, op experiment.ProbeOp, _ time.Duration) (experiment.Band, bool) {
	if r.Members < 2 || (f == experiment.QuorumLoss && role == experiment.Majority) || f == experiment.MemberUnreachable {
		// member-unreachable drops the clients' packets only: the members probe, from the
		// harness, still reaches every member (no rule judges it as a client's read).
		return experiment.Band{}, false
	}
	what := "answers a list from its own memory"
	if op == experiment.Register {
		what = "registers the instance of a client connected to it and syncs it later"
	}
	return experiment.Band{Lo: 1, Hi: 1, Basis: "every live member " + what + ": " + distroRule}, true
}

// MemberReads: under a quorum loss a read through a killed member is refused, the client's
// next member is tried, and the survivor answers it whole; with a member cut off every member
// answers whole. Either holds while the
// members keep their copies of each other's clients (ClientExpired); beyond, a member lists
// only the clients it still holds.
func (r Rules) MemberReads(f experiment.FaultKind) (experiment.Reads, string) {
	if r.Members < 2 {
		return experiment.ReadsAnswer, "one standalone server: no member fault is made on this world (refused before the run)"
	}
	if !r.keepsCopies() {
		return experiment.ReadsSome, fmt.Sprintf("the fault (%s) outlasts the %s a member keeps another's clients without a verify "+
			"(ConnectionBasedClient.isExpire): a member then lists only the clients it still holds", r.MemberFault, ClientExpired)
	}
	if f == experiment.MemberUnreachable {
		return experiment.ReadsSome, "a read through the member whose client packets are dropped fails (nothing crosses) until the client " +
			"moves to another member; every other member answers every read with every instance (" + r.copiesRule() + ")"
	}
	if f == experiment.QuorumLoss {
		return experiment.ReadsAnswer, "a client given every member reads past the killed ones: a policy caller tries the members in turn " +
			"from a random one and a killed member refuses at once (NamingHttpClientProxy.reqApi), a real client moves its connection to " +
			"a live member and keeps its list meanwhile; the survivor answers every read with every instance: its own clients and its " +
			"copies of the killed members' (" + r.copiesRule() + ")"
	}
	return experiment.ReadsAnswer, "every member answers every read with every instance: the cut member and the others keep their copies " +
		"of each other's clients (" + r.copiesRule() + "), and a client connected to a member stays with it"
}

// memberClientWhile: a real client's list changes only on a push or a query's answer; a killed
// member sends neither (its client moves to a live member and queries there), a cut-off member
// still answers, and every live member lists every instance while the copies last.
func (r Rules) memberClientWhile(how experiment.How) (experiment.Band, bool) {
	if !r.keepsCopies() {
		return experiment.Band{}, false
	}
	what := "a cut-off member still answers its clients"
	if how.Kills() {
		what = "a killed member sends nothing, and the client moves to the survivor (its server list), which answers"
	}
	return experiment.Band{Lo: 0, Hi: 0, Basis: "a Nacos client changes its list only on a push or a query's answer " +
		"(ServiceInfoHolder.processServiceInfo); " + what + " with every instance (" + r.copiesRule() + "); every instance lives: no call fails"}, true
}

// afterQuorumLoss bounds a caller's recovery after a quorum loss's heal: a real client's list
// was never emptied (memberClientWhile); a policy caller's read may reach a member launched
// again at the heal first, whose client open API answers before Distro has loaded its
// snapshot (the v3 API is outside TrafficReviseFilter's /v1/ns/* patterns, NamingConfig.java),
// possibly with no instance: within Restart of the launch the member is ready, its data loaded
// (nacos.naming.data.warmup), then the caller's next refresh.
func (r Rules) afterQuorumLoss(c experiment.Caller, refresh time.Duration) (time.Duration, string) {
	if c.Kind != experiment.PolicyCaller {
		return 0, "its list was never emptied: the survivor answered with every instance throughout (" + r.copiesRule() + ")"
	}
	return r.Restart + refresh + time.Second, fmt.Sprintf("its read may reach a member launched again at the heal first, whose client open API "+
		"answers before Distro has loaded its snapshot (the v3 API is not behind TrafficReviseFilter), possibly with no instance; the member "+
		"is ready, its data loaded, within %s of its launch (its ready timeout, nacos.naming.data.warmup), then its next refresh (≤ refresh) "+
		"is answered within 1 s", r.Restart)
}
