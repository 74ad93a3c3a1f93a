package xds

import (
	"context"
	"fmt"
	"log"
	"net/netip"
	"slices"
	"sync"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discoverygrpc "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
)

// allNodes gives every client the same snapshot: go-control-plane keys
// snapshots by node hash, and the world's clients differ only in node id.
type allNodes struct{}

// ID returns the one key every node shares.
func (allNodes) ID(*corev3.Node) string { return snapshotKey }

const snapshotKey = "sdchaos"

// snapshotter turns registry views into snapshots under the settings: it
// serves the start snapshot until it follows, then what the registry lists,
// and on a failed view what OnWatchFail says.
type snapshotter struct {
	cache cachev3.SnapshotCache
	set   ControlPlaneSettings
	boot  string // distinguishes this process's versions from a predecessor's
	mu    sync.Mutex
	seq   int
	// following: registry views change the snapshot.
	following bool
	// last is the last view that succeeded; failed the current failure.
	last   []netip.AddrPort
	failed error
	// served is what the cache holds; haveSnap whether any was set.
	served   served
	haveSnap bool
	version  string
	// streams counts the open ADS streams; responses the responses sent.
	streams, responses int
}

// served is the content and endpoints of a snapshot.
type served struct {
	content Content
	eps     []netip.AddrPort
}

func (a served) equal(b served) bool { return a.content == b.content && slices.Equal(a.eps, b.eps) }

func newSnapshotter(cache cachev3.SnapshotCache, set ControlPlaneSettings, boot string) *snapshotter {
	return &snapshotter{cache: cache, set: set, boot: boot, following: set.Start == FromRegistry}
}

// begin sets the start snapshot (none for NoSnapshot or FromRegistry,
// which waits for the first view).
func (s *snapshotter) begin() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.set.Start {
	case EmptySnapshot:
		return s.serveLocked(served{content: Nothing})
	case PartialSnapshot:
		return s.serveLocked(served{content: NoEndpoints})
	}
	return nil
}

// view takes one registry view.
func (s *snapshotter) view(v registryView) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v.Err == nil {
		s.last, s.failed = v.Endpoints, nil
	} else {
		s.failed = v.Err
		log.Printf("registry view failed: %v", v.Err)
	}
	return s.applyLocked()
}

// follow makes the snapshotter follow the registry from now on.
func (s *snapshotter) follow() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.following = true
	return s.applyLocked()
}

func (s *snapshotter) applyLocked() error {
	if !s.following {
		return nil
	}
	switch {
	case s.failed == nil:
		return s.serveLocked(served{content: Full, eps: s.last})
	case s.set.OnWatchFail == ClearEndpoints:
		return s.serveLocked(served{content: NoEndpoints})
	}
	return nil // KeepLast: the cache keeps what it holds
}

func (s *snapshotter) serveLocked(want served) error {
	if s.haveSnap && s.served.equal(want) {
		return nil
	}
	s.seq++
	version := fmt.Sprintf("%s-%d", s.boot, s.seq)
	snap, err := BuildSnapshot(version, s.set.Service, want.eps, want.content)
	if err != nil {
		return err
	}
	if err := s.cache.SetSnapshot(context.Background(), snapshotKey, snap); err != nil {
		return fmt.Errorf("setting snapshot %s: %w", version, err)
	}
	s.served, s.haveSnap, s.version = want, true, version
	log.Printf("snapshot %s: %s, %d endpoints %v", version, want.content, len(want.eps), want.eps)
	return nil
}

// Status is the control plane's answer to "status".
type Status struct {
	// Version is the snapshot version served ("" before any).
	Version string
	// Content and Endpoints are what it serves.
	Content   Content
	Endpoints int
	// Following says whether it follows the registry; RegistryOK whether
	// its last view succeeded.
	Following, RegistryOK bool
	// Streams is the number of open ADS streams; Responses how many
	// responses it has sent.
	Streams, Responses int
}

func (s *snapshotter) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{Version: s.version, Content: s.served.content, Endpoints: len(s.served.eps),
		Following: s.following, RegistryOK: s.failed == nil, Streams: s.streams, Responses: s.responses}
}

// callbacks count the ADS streams and responses for Status.
func (s *snapshotter) callbacks() serverv3.Callbacks {
	count := func(n *int, d int) {
		s.mu.Lock()
		*n += d
		s.mu.Unlock()
	}
	return serverv3.CallbackFuncs{
		StreamOpenFunc: func(_ context.Context, id int64, typ string) error {
			count(&s.streams, 1)
			log.Printf("ADS stream %d opened (%s)", id, typ)
			return nil
		},
		StreamClosedFunc: func(id int64, node *corev3.Node) {
			count(&s.streams, -1)
			log.Printf("ADS stream %d of %s closed", id, node.GetId())
		},
		StreamResponseFunc: func(context.Context, int64, *discoverygrpc.DiscoveryRequest, *discoverygrpc.DiscoveryResponse) {
			count(&s.responses, 1)
		},
	}
}
