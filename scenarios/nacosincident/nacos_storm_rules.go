package nacosincident

import (
	"time"

	"sdchaos/worlds/nacos"
)

// The nacos-sdk-go rules of a reconnect (v2.3.2, common/remote/rpc; worlds/nacos/rules.go), on
// top of the server's in nacos_incident_rules.go.
const (
	// sdkSetupSleep: a new connection sends its ConnectionSetupRequest
	// and sleeps this long before the client counts it connected
	// (GrpcClient.sendConnectionSetupRequest); then the connection
	// listener's OnConnected re-registers every cached instance
	// (ConnectionEventListener.redoRegisterEachService), once: a failed
	// redo is logged and not retried until the next reconnect.
	sdkSetupSleep = nacos.SDKSetupSleep
)

// relistBy is how long after its link's heal an instance is listed again
// at the latest: the client's reconnect loop sleeps at most reconnectSleep
// (min(turns, 50) × 100 ms, RpcClient.reconnect) and its next attempt waits
// at most serverCheckTimeout for the server check (DEFAULT_TIMEOUT_MILLS;
// an attempt in flight at the heal is answered then), then sdkSetupSleep,
// the redo's RegisterInstance, and the push delay after which the answered
// list is refreshed (ServiceStorage), + ruleSlack for the round trips.
func relistBy() time.Duration {
	return reconnectSleep + serverCheckTimeout + sdkSetupSleep + pushDelay + ruleSlack
}

// stormWindow is how long after a phase's first heal its CPU is
// counted as the storm's: the heal spread plus relistBy.
func stormWindow(spread time.Duration) time.Duration { return spread + relistBy() }

// stormNoRemovalBelow is the longest loss that removes no instance here:
// an instance registers right after its client starts, and the client's
// health-check timer, started with it, first fires clientKeepAlive later,
// finds the registration less than clientKeepAlive old and skips
// (RpcClient.healthCheck); its first health check comes 2 × clientKeepAlive
// after the start. Every instance registers within seconds of the server
// listing them all, so at --fault-at (5 s) after it none may have sent a
// health check yet: silent up to 2 × clientKeepAlive when the loss begins
// (nacos-incident's instances register 30 s before time zero and are
// silent at most clientKeepAlive). Probed keepAliveTime after its last
// request, ejected ejectProbe later, − lowSlack.
func stormNoRemovalBelow() time.Duration {
	return keepAliveTime - 2*clientKeepAlive + ejectProbe - lowSlack
}
