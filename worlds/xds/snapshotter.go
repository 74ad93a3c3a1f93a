package xds

import (
	"context"
	"fmt"
	"log"
	"net/netip"
	"slices"
	"sync"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
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
	// served is what the cache holds (set: whether any snapshot was set).
	served  served
	set1    bool
	version string
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
	if s.set1 && s.served.equal(want) {
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
	s.served, s.set1, s.version = want, true, version
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
}

func (s *snapshotter) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{Version: s.version, Content: s.served.content, Endpoints: len(s.served.eps),
		Following: s.following, RegistryOK: s.failed == nil}
}
