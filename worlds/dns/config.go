package dns

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// StaleMode is the cache plugin's serve_stale refresh mode
// (plugin/cache/setup.go, case "serve_stale").
type StaleMode string

// The two refresh modes of serve_stale.
const (
	// StaleImmediate answers with the expired entry at once and refreshes
	// it in the background (the plugin's default mode).
	StaleImmediate StaleMode = "immediate"
	// StaleVerify asks the upstream first and answers with the expired
	// entry only when the refresh fails.
	StaleVerify StaleMode = "verify"
)

// ServeStale is the cache plugin's serve_stale setting.
type ServeStale struct {
	// For is how long past its expiry an entry may still be served
	// (the plugin's DURATION; 1 h when zero).
	For time.Duration
	// Mode is the refresh mode (immediate when empty).
	Mode StaleMode
}

// Cache is the cache plugin in front of the server's backend.
type Cache struct {
	// MaxTTL caps how long an answer is cached (the plugin's TTL argument,
	// whole seconds; the plugin's 3600 s when zero).
	MaxTTL time.Duration
	// ServeStale, when set, turns on serve_stale.
	ServeStale *ServeStale
	// ServFail, when set, is how long a SERVFAIL is cached (the plugin's
	// servfail option; 5 s when unset, 0 turns it off).
	ServFail *time.Duration
}

// Backend is the etcd plugin's setting: where the SkyDNS records are.
type Backend struct {
	// Endpoints are etcd's client URLs.
	Endpoints []string
	// Path is the key prefix of the records ("skydns" when empty).
	Path string
	// MinLeaseTTL is the etcd plugin's min-lease-ttl (whole seconds; the
	// plugin's 30 s when zero).
	MinLeaseTTL time.Duration
}

// ServerConfig is one CoreDNS server: authoritative for Zone from etcd
// (Etcd set), or a node-local cache layer forwarding Zone to another
// server (Forward set), with an optional cache in front.
type ServerConfig struct {
	// Zone is the zone served, fully qualified ("skydns.local.").
	Zone string
	// Etcd reads records from etcd; exactly one of Etcd and Forward is set.
	Etcd *Backend
	// Forward is the upstream DNS server of a cache layer.
	Forward netip.AddrPort
	// Cache, when set, puts the cache plugin in front.
	Cache *Cache
}

// DefaultZone is the zone the world's records live in.
const DefaultZone = "skydns.local."

// DefaultPath is the etcd plugin's default key prefix (setup.go, PathPrefix: "skydns").
const DefaultPath = "skydns"

// Validate reports an impossible configuration, quoting the value.
func (c ServerConfig) Validate() error {
	if !strings.HasSuffix(c.Zone, ".") || len(c.Zone) < 2 {
		return fmt.Errorf("zone %q must be a fully qualified name (ending in a dot)", c.Zone)
	}
	if (c.Etcd == nil) == !c.Forward.IsValid() {
		return errors.New("exactly one of an etcd backend and a forward upstream must be set")
	}
	if c.Etcd != nil {
		if err := c.Etcd.validate(); err != nil {
			return err
		}
	}
	if c.Forward.IsValid() && !c.Forward.Addr().IsLoopback() {
		return fmt.Errorf("forward upstream %s is not on a loopback address", c.Forward)
	}
	if c.Cache != nil {
		return c.Cache.validate()
	}
	return nil
}

func (b Backend) validate() error {
	switch {
	case len(b.Endpoints) == 0:
		return errors.New("the etcd backend has no endpoints")
	case b.MinLeaseTTL < 0 || b.MinLeaseTTL%time.Second != 0:
		return fmt.Errorf("min-lease-ttl (%s) must be a non-negative whole number of seconds", b.MinLeaseTTL)
	}
	return nil
}

// maxServFail is the cache plugin's bound on the servfail option
// (README: "DURATION may not be greater than 5 minutes").
const maxServFail = 5 * time.Minute

func (c Cache) validate() error {
	switch {
	case c.MaxTTL < 0 || c.MaxTTL%time.Second != 0:
		return fmt.Errorf("cache TTL (%s) must be a non-negative whole number of seconds", c.MaxTTL)
	case c.ServFail != nil && (*c.ServFail < 0 || *c.ServFail > maxServFail):
		return fmt.Errorf("servfail duration (%s) must be within [0, %s]", *c.ServFail, maxServFail)
	}
	if s := c.ServeStale; s != nil {
		if s.For < 0 {
			return fmt.Errorf("serve_stale duration (%s) must not be negative", s.For)
		}
		if s.Mode != "" && s.Mode != StaleImmediate && s.Mode != StaleVerify {
			return fmt.Errorf("serve_stale mode %q is neither %q nor %q", s.Mode, StaleImmediate, StaleVerify)
		}
	}
	return nil
}
