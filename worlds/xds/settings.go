package xds

import (
	"fmt"
	"time"
)

// WatchFailPolicy is what the control plane serves while its view of the
// registry is lost (its etcd watch closed or its liveness read failed).
type WatchFailPolicy int

// The control plane's policies on a failed registry watch.
const (
	// KeepLast keeps serving the last snapshot built from the registry.
	KeepLast WatchFailPolicy = iota
	// ClearEndpoints serves a snapshot whose ClusterLoadAssignment has no
	// endpoints (listener, route and cluster stay).
	ClearEndpoints
)

var watchFailNames = map[WatchFailPolicy]string{KeepLast: "keep", ClearEndpoints: "clear"}

// String returns the policy's flag spelling ("keep" or "clear").
func (p WatchFailPolicy) String() string { return nameOf(watchFailNames, p) }

// ParseWatchFailPolicy parses "keep" or "clear".
func ParseWatchFailPolicy(s string) (WatchFailPolicy, error) {
	return parseName(watchFailNames, s, "watch-fail policy")
}

// StartSnapshot is what a (re)started control plane serves before it
// follows the registry.
type StartSnapshot int

// The snapshots a control plane can start with.
const (
	// FromRegistry serves what the registry lists from the start.
	FromRegistry StartSnapshot = iota
	// EmptySnapshot serves a snapshot with no resources of any type: a
	// state-of-the-world LDS and CDS response that omits the listener and
	// the cluster (gRFC A53: a deletion unless ignore_resource_deletion).
	EmptySnapshot
	// PartialSnapshot serves the listener, route and cluster with a
	// ClusterLoadAssignment that has no endpoints.
	PartialSnapshot
	// NoSnapshot sets no snapshot: go-control-plane holds every request
	// open without answering (the stream is up, nothing arrives).
	NoSnapshot
)

var startNames = map[StartSnapshot]string{FromRegistry: "registry", EmptySnapshot: "empty", PartialSnapshot: "partial", NoSnapshot: "none"}

// String returns the setting's flag spelling.
func (s StartSnapshot) String() string { return nameOf(startNames, s) }

// ParseStartSnapshot parses "registry", "empty", "partial" or "none".
func ParseStartSnapshot(s string) (StartSnapshot, error) {
	return parseName(startNames, s, "start snapshot")
}

func nameOf[K ~int](names map[K]string, k K) string {
	if n, ok := names[k]; ok {
		return n
	}
	return fmt.Sprintf("unknown(%d)", int(k))
}

func parseName[K comparable](names map[K]string, s, what string) (K, error) {
	for k, n := range names {
		if n == s {
			return k, nil
		}
	}
	var zero K
	return zero, fmt.Errorf("unknown %s %q", what, s)
}

// ControlPlaneSettings are the control plane's typed settings.
type ControlPlaneSettings struct {
	// Service is the service whose instances it serves (xds:///<Service>).
	Service string
	// OnWatchFail says what it serves while the registry is lost.
	OnWatchFail WatchFailPolicy
	// Start is what it serves first; Hold how long before it follows the
	// registry (0: until told to follow, see ControlPlane.Follow).
	Start StartSnapshot
	Hold  time.Duration
	// Poll is the period of its linearizable liveness read of the
	// registry; ReadTimeout bounds that read.
	Poll, ReadTimeout time.Duration
}

// DefaultControlPlaneSettings keeps the last snapshot and follows the
// registry from the start, reading it every 500 ms with a 1 s deadline.
func DefaultControlPlaneSettings(service string) ControlPlaneSettings {
	return ControlPlaneSettings{Service: service, OnWatchFail: KeepLast, Start: FromRegistry,
		Poll: 500 * time.Millisecond, ReadTimeout: time.Second}
}

// Validate reports impossible values, quoting them.
func (s ControlPlaneSettings) Validate() error {
	switch {
	case s.Service == "":
		return fmt.Errorf("control plane: service name is empty")
	case s.Poll <= 0 || s.ReadTimeout <= 0:
		return fmt.Errorf("control plane: poll (%s) and read timeout (%s) must be positive", s.Poll, s.ReadTimeout)
	case s.Hold < 0:
		return fmt.Errorf("control plane: hold (%s) must not be negative", s.Hold)
	case s.OnWatchFail.String() != watchFailNames[s.OnWatchFail]:
		return fmt.Errorf("control plane: %s watch-fail policy", s.OnWatchFail)
	case s.Start.String() != startNames[s.Start]:
		return fmt.Errorf("control plane: %s start snapshot", s.Start)
	}
	return nil
}
