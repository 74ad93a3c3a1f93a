package nacosarticle

import "time"

// The nacos-sdk-go rules of a reconnect (v2.3.2, common/remote/rpc), on
// top of the server's in nacos_incident_rules.go.
const (
	// sdkSetupSleep: a new connection sends its ConnectionSetupRequest
	// and sleeps this long before the client counts it connected
	// (GrpcClient.sendConnectionSetupRequest); then the connection
	// listener's OnConnected re-registers every cached instance
	// (ConnectionEventListener.redoRegisterEachService), once: a failed
	// redo is logged and not retried until the next reconnect.
	sdkSetupSleep = 100 * time.Millisecond
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
