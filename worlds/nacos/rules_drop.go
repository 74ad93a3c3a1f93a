package nacos

import (
	"fmt"
	"time"

	"sdchaos/experiment"
)

// The rules of lost packets (how: drop; member-unreachable) on the Nacos cluster, read in
// alibaba/nacos at 486e198 and nacos-sdk-go v2.3.2 (common/remote/rpc/rpc_client.go).
//
// Every member holds the gRPC connections of the clients connected to it and ejects a silent one
// by the same rule as a standalone server (KeepAliveTime, EjectEvery, EjectProbeTimeout), then
// syncs the removal of its client to every peer DistroSyncDelay later (naming
// DistroClientDataProcessor.syncToAllServer: a ClientDisconnectEvent → DistroProtocol.sync(key,
// DELETE) with DistroConfig's sync delay). Dropped packets differ from a blackholed link at the
// heal: what a side sent during the loss waits in TCP's retransmission back-off (doubling from
// 200 ms), so a probe sent before the heal, or a client's answer to it, may cross only after the
// probe's 5 s timeout, and the member ejects the connection after the heal. nacos-sdk-go keeps its
// old connection until a new one is made (RpcClient.reconnect: "abandon prev connection" only after
// connectToServer succeeds), and picks the next server of its list round robin
// (NacosServer.GetNextServer), so a client whose member alone is lost moves to another member.
const (
	// DistroSyncDelay: a member syncs a change of a client it is responsible for (a removal
	// included) to its peers this long after it (core DistroConstants.java:32
	// DEFAULT_DATA_SYNC_DELAY_MILLISECONDS 1000), on a delay engine that looks every 100 ms
	// (common NacosDelayTaskExecuteEngine.java:51 processInterval 100L): 1.1 s at the latest.
	DistroSyncDelay = 1100 * time.Millisecond
)

// DropProbedFrom is the shortest loss after which a member may eject a silent connection after
// the heal: a connection silent at most silentAtCut is probed once idle KeepAliveTime (− LowSlack),
// and a probe sent before the heal, or the client's answer, may cross only at a retransmission
// after the probe's timeout.
func DropProbedFrom(silentAtCut time.Duration) time.Duration {
	return KeepAliveTime - silentAtCut - LowSlack
}

// dropRule says why a dropped loss may remove instances after the heal.
func dropRule(silent time.Duration) string {
	return fmt.Sprintf("each member ejects the silent connections it holds (%s); with packets dropped, a probe sent before the heal "+
		"(from %s into the loss) or the client's answer waits in TCP's retransmission back-off and may cross after its %s timeout, "+
		"so the member may eject the connection after the heal", removalRule(silent), DropProbedFrom(silent), EjectProbeTimeout)
}

// dropRemoves reports whether a loss of r.Loss made as how may remove instances, during it or
// after the heal.
func (r Rules) dropRemoves(how experiment.How) bool {
	if how == experiment.Drop {
		return r.Loss >= DropProbedFrom(r.SilentAtCut)
	}
	return r.removes()
}

// distro is the delay a member's reading of another member's change adds on the cluster (none on
// a standalone server).
func (r Rules) distro() time.Duration {
	if r.Members > 1 {
		return DistroSyncDelay
	}
	return 0
}

// distroRule says what the cluster adds to a bound.
func (r Rules) distroRule() string {
	if r.Members < 2 {
		return ""
	}
	return fmt.Sprintf("; on the cluster, + %s for Distro to carry a change from the member that made it to the one read "+
		"(DistroConstants.DEFAULT_DATA_SYNC_DELAY_MILLISECONDS, NacosDelayTaskExecuteEngine's 100 ms)", DistroSyncDelay)
}

// clientWhileDrop: the dropped packets carry no push and no answer, and a client whose member
// alone is lost moves to another member (its health check fails within ClientKeepAlive +
// ServerCheckTimeout, GetNextServer picks the next server), which answers with every instance.
func (r Rules) clientWhileDrop() (experiment.Band, bool) {
	return experiment.Band{Lo: 0, Hi: 0, Basis: "a Nacos client changes its list only on a push or a query's answer " +
		"(ServiceInfoHolder.processServiceInfo): the dropped packets carry neither, and a client whose member alone is lost " +
		"moves to the next server of its list (nacos-sdk-go RpcClient.reconnect, NacosServer.GetNextServer; nacos-client RpcClient.reconnect), " +
		"where every member lists every instance; every instance lives: no call fails"}, true
}

// MemberRemoves: with one member's client packets dropped the list never empties: each instance
// connected to that member moves to the next server of its list once its health check fails
// (within 2 × ClientKeepAlive + ServerCheckTimeout), long before the member ejects its old
// connection (NoRemovalBelow); that ejection removes only the old client's registration, and a
// service lists the union of its clients' (ServiceStorage.getAllInstancesFromIndex, a HashSet
// over the publishers: naming core/v2/index/ServiceStorage.java:106-107).
func (r Rules) MemberRemoves(f experiment.FaultKind, _ time.Duration) (experiment.Band, bool) {
	if f != experiment.MemberUnreachable || r.Members < 2 {
		return experiment.Band{}, false
	}
	moved := 2*ClientKeepAlive + ServerCheckTimeout
	return experiment.Band{Lo: 0, Hi: 0, Basis: fmt.Sprintf("an instance whose member is lost moves to the next server of its list once its health "+
		"check fails (≤ %s: looks every %s, idle up to 2 looks, %s timeout; RpcClient.healthCheck → reconnect, GetNextServer round robin) "+
		"and registers there again (redoRegisterEachService), before the lost member ejects the old connection (≥ %s: %s); "+
		"that removes only the old client's registration, and a service lists the union of its clients' (ServiceStorage.getAllInstancesFromIndex)",
		moved, ClientKeepAlive, ServerCheckTimeout, NoRemovalBelow(r.SilentAtCut), removalRule(r.SilentAtCut))}, true
}
