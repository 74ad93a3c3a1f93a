package xds

import (
	"math"
	"time"

	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

// WatchExpiry is gRPC-Go's does-not-exist timer: a subscribed resource that
// no response names within it is reported as not existing. Basis: grpc-go
// v1.84.0 internal/xds/clients/xdsclient/xdsclient.go,
// defaultWatchExpiryTimeout = 15 * time.Second (also
// internal/xds/xdsclient/clientimpl.go); gRFC A57. The timer starts only when
// the request is written on a stream (ads_stream.go startWatchTimersLocked,
// state Started → Requested) and is stopped and reset when the stream fails
// (ads_stream.go onError), so a client that starts while the control plane
// is down waits for the stream, then 15 s.
const WatchExpiry = 15 * time.Second

// The ADS stream's retry back-off: grpc-go backoff/backoff.go DefaultConfig
// (BaseDelay 1 s, Multiplier 1.6, Jitter 0.2, MaxDelay 120 s), used by
// internal/xds/clients/xdsclient/xdsclient.go defaultExponentialBackoff;
// reset once a stream receives a message (ads_stream.go runner).
const (
	BackoffBase       = time.Second
	BackoffMultiplier = 1.6
	BackoffJitter     = 0.2
	BackoffMax        = 120 * time.Second
)

// backoffDelay is the k-th retry delay before jitter.
func backoffDelay(k int) time.Duration {
	d := float64(BackoffBase) * math.Pow(BackoffMultiplier, float64(k))
	return time.Duration(math.Min(d, float64(BackoffMax)))
}

// ReconnectWithin bounds how long after a control plane that was down for
// `down` comes back a client's ADS stream is up again. Two back-offs with
// the same DefaultConfig run one under the other: the xDS channel's
// connection attempts and the ADS stream's retries, and a stream is made
// only on a READY channel (grpc-go internal/xds/clients/grpctransport
// NewStream is not wait-for-ready). Attempt k is under way when the
// shortest delays (1 − jitter) of attempts 0…k add up past `down`; the
// channel connects within the longest delay of attempt k (1 + jitter), and
// at most one stream attempt (spaced ≥ 0.8 × 1.6 × delay k apart) can fail
// meanwhile, so the stream is up within the longest delays of k and k+1.
func ReconnectWithin(down time.Duration) time.Duration {
	var elapsed time.Duration
	k := -1
	for elapsed <= down {
		k++
		elapsed += time.Duration((1 - BackoffJitter) * float64(backoffDelay(k)))
	}
	return time.Duration((1 + BackoffJitter) * float64(backoffDelay(k)+backoffDelay(k+1)))
}

// KeepsResourcesOnDisconnect is gRFC A57's rule: a client keeps the
// resources it has when its stream to the control plane fails, and serves
// with them for as long as the control plane is gone (the resources the
// world's snapshots carry have no TTL). Basis: grpc-go v1.84.0
// internal/xds/clients/xdsclient/authority.go handleADSStreamFailure (a
// cached resource's watchers get only an AmbientError) and ads_stream.go
// onError (only resources still in the Requested state are reset).
const KeepsResourcesOnDisconnect = true

// DeletedWhenOmitted reports whether a client drops a resource it holds of
// type typeURL when a state-of-the-world response leaves it out. Only
// listeners and clusters need every resource in every response, and gRFC
// A53's ignore_resource_deletion server feature keeps them. Basis: grpc-go
// internal/xds/xdsclient/resource_types.go (AllResourcesRequiredInSotW:
// true for V3ListenerURL and V3ClusterURL only), authority.go
// handleADSResourceUpdate (ServerFeatureIgnoreResourceDeletion);
// go-control-plane v0.14.0 pkg/cache/v3/resource.go
// ResourceRequiresFullStateInSotw (ClusterType, ListenerType).
func DeletedWhenOmitted(typeURL string, ignoreResourceDeletion bool) bool {
	full := typeURL == resource.ListenerType || typeURL == resource.ClusterType
	return full && !ignoreResourceDeletion
}

// ServesAfterRestart reports whether a client that held a working
// configuration still reaches instances once a control plane restarted
// with start has answered it (before it follows the registry), and why.
func ServesAfterRestart(start StartSnapshot, ignoreResourceDeletion bool) (bool, string) {
	switch start {
	case FromRegistry:
		return true, "the snapshot lists the registry's instances"
	case NoSnapshot:
		return true, "go-control-plane holds a request while no snapshot is set (pkg/cache/v3/simple.go CreateWatch); " +
			"received resources start no expiry timer (A57), so the client keeps its cache"
	case PartialSnapshot:
		return false, "an empty ClusterLoadAssignment is an update, not a deletion: the client has no endpoint, " +
			"ignore_resource_deletion or not"
	case EmptySnapshot:
		if ignoreResourceDeletion {
			return true, "A53: the omitted listener and cluster are kept; routes and endpoints are never deleted by omission"
		}
		return false, "A53: the omitted listener and cluster are deleted (resource-not-found), so the channel fails"
	}
	return false, "unknown start snapshot"
}

// ServesWhileRegistryLost reports whether clients keep reaching live
// instances while the control plane has lost the registry, by its policy:
// KeepLast serves the last snapshot (go-control-plane answers only when
// SetSnapshot changes the version, pkg/cache/v3/simple.go SetSnapshot);
// ClearEndpoints pushes an empty load assignment.
func ServesWhileRegistryLost(p WatchFailPolicy) bool { return p == KeepLast }

// go-control-plane v0.14.0's snapshot semantics the world relies on.
const (
	// HoldsWithoutSnapshot: a request from a node that has no snapshot is
	// held open unanswered until SetSnapshot (pkg/cache/v3/simple.go
	// CreateWatch: "if !exists { return createWatch(watch) }"), so a
	// control plane restarted with NoSnapshot starts no client timer for
	// resources the client already has.
	HoldsWithoutSnapshot = true
	// ResendsOnNewStream: a request on a new stream is answered with every
	// subscribed resource of the snapshot even at the client's version,
	// since a new state-of-the-world subscription has returned nothing
	// (pkg/server/stream/v3/subscription.go NewSotwSubscription, no initial
	// versions; simple.go CreateWatch responds for a subscribed resource not
	// yet returned). The EDS not re-sent on reconnect of
	// envoyproxy/envoy#22418 is not this control plane's behaviour.
	ResendsOnNewStream = true
	// OmittedMeansDeletedForLDSAndCDS: a snapshot without the listener or
	// the cluster answers the client's named request with no such resource
	// (simple.go createResponse keeps the requested names it has), which
	// gRPC-Go reads as a deletion (DeletedWhenOmitted).
	OmittedMeansDeletedForLDSAndCDS = true
)

// RegistryLossNoticedWithin bounds how long after the registry loses its
// quorum the control plane acts on its watch-fail policy: its liveness
// read runs every Poll and fails at the latest after ReadTimeout (the
// watch, opened with WithRequireLeader, may close sooner). These are the
// control plane's own settings (ControlPlaneSettings), not a registry rule.
func RegistryLossNoticedWithin(set ControlPlaneSettings) time.Duration {
	return set.Poll + set.ReadTimeout
}

// FallsBackOnlyWhenUncached is gRFC A71's rule for a bootstrap with several
// control planes: a client turns to the next one only when its stream to
// the current one fails before any response and it watches a resource it
// has not cached; with everything cached it keeps its cache (A57) and stays.
// It goes back to a higher-priority control plane on that one's first
// response and closes the lower ones. Basis: grpc-go v1.84.0
// internal/xds/clients/xdsclient/authority.go handleADSStreamFailure
// (watcherExistsForUncachedResource, fallbackToServer) and
// handleRevertingToPrimaryOnUpdate.
const FallsBackOnlyWhenUncached = true
