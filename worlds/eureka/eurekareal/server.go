package eurekareal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"sdchaos/childproc"
	"sdchaos/procstat"
)

// Server is one real Eureka server process as the harness sees it.
type Server struct {
	// Name is the harness's label ("s1", or "<label>-s1").
	Name string
	// URL is the server's base address ("http://127.0.0.1:9600");
	// ServiceURL is its Eureka service URL (URL + "/eureka/"), the form
	// clients and peers are given.
	URL, ServiceURL string
	// LogPath holds the JVM's stdout and stderr.
	LogPath string
	// Startup is how long the node took from launch until its registry was
	// open and it answered /sdchaos/state.
	Startup time.Duration
	// Replication is, for the start-up probes, the longest time a probe
	// registration made on another node took to appear here.
	Replication time.Duration
	// MonoOffset is wall ms − monotonic ms of the server at start-up (before
	// any clock step): the host time of a monotonic stamp m is m + MonoOffset
	// (CLOCK_MONOTONIC is shared by every process of the host).
	MonoOffset int64

	// Args is the JVM's command line after the java executable (its
	// options, the jar and every property it was given).
	Args []string

	child  *childproc.Child
	launch *launchSpec // how the JVM was started (Restart starts it so again)
	clock  *fakeClock  // nil without ClockControl
	httpc  *http.Client
}

// State is the registry's state at one instant (GET /sdchaos/state), read
// through the registry's public methods. Times: WallMS the server's
// System.currentTimeMillis (a clock step moves it), MonoMS its
// System.nanoTime in ms (CLOCK_MONOTONIC).
type State struct {
	Server       string `json:"server"`
	WallMS       int64  `json:"wall_ms"`
	MonoMS       int64  `json:"mono_ms"`
	UptimeMS     int64  `json:"uptime_ms"`
	OpenedWallMS int64  `json:"opened_wall_ms"`
	OpenedMonoMS int64  `json:"opened_mono_ms"`
	// RenewsLastMin is getNumOfRenewsInLastMin() (MeasuredRate's last full minute).
	RenewsLastMin int64 `json:"renews_last_min"`
	// Threshold is getNumOfRenewsPerMinThreshold(); Expected the protected
	// field expectedNumberOfClientsSendingRenews.
	Threshold int `json:"threshold"`
	Expected  int `json:"expected"`
	// ExpirationEnabled is isLeaseExpirationEnabled(); SelfPreservation is
	// isSelfPreservationModeEnabled() (the configuration switch only);
	// BelowThreshold is isBelowRenewThresold() == 1 (the dashboard's banner).
	ExpirationEnabled bool `json:"lease_expiration_enabled"`
	SelfPreservation  bool `json:"self_preservation_enabled"`
	BelowThreshold    bool `json:"below_renew_threshold"`
	// Size is getLocalRegistrySize(); IDs the "APP/id" keys held.
	Size int      `json:"size"`
	IDs  []string `json:"ids"`
	// Renewals and ReplicatedRenewals count accepted renewals since start.
	Renewals            int64 `json:"renewals"`
	ReplicatedRenewals  int64 `json:"replicated_renewals"`
	ReplicationsLastMin int64 `json:"replications_last_min"`
}

// Event kinds the server records (the model's names where they exist).
const (
	EventOpen         = "open"
	EventRegister     = "register"
	EventCancel       = "cancel"
	EventEvict        = "evict"
	EventRenewUnknown = "renew-unknown"
)

// Event is a registry change as it happened. Count is set on EventOpen (the
// expected-client count it opened with).
type Event struct {
	Seq        int64  `json:"seq"`
	WallMS     int64  `json:"wall_ms"`
	MonoMS     int64  `json:"mono_ms"`
	Kind       string `json:"kind"`
	ID         string `json:"id"`
	Replicated bool   `json:"replicated"`
	New        bool   `json:"new"`
	Count      int    `json:"count"`
}

// EvictionRun is one run of the eviction task, read just before the real
// evict ran (the model's eureka.EvictionRun). Expired and Limit are set only
// when Enabled, as in the model; WouldExpire is counted on every run.
type EvictionRun struct {
	WallMS         int64    `json:"wall_ms"`
	MonoMS         int64    `json:"mono_ms"`
	RenewsLastMin  int64    `json:"renews_last_min"`
	Threshold      int      `json:"threshold"`
	Expected       int      `json:"expected"`
	Enabled        bool     `json:"enabled"`
	Size           int      `json:"size"`
	Expired        int      `json:"expired"`
	Limit          int      `json:"limit"`
	WouldExpire    int      `json:"would_expire"`
	Evicted        []string `json:"evicted"`
	CompensationMS int64    `json:"compensation_ms"`
}

// ThresholdRun is one run of the renewal-threshold update (the model's
// eureka.ThresholdRun).
type ThresholdRun struct {
	WallMS    int64 `json:"wall_ms"`
	MonoMS    int64 `json:"mono_ms"`
	Count     int   `json:"count"`
	Adopted   bool  `json:"adopted"`
	Expected  int   `json:"expected"`
	Threshold int   `json:"threshold"`
}

// Events is everything a server recorded (GET /sdchaos/events).
type Events struct {
	Server     string         `json:"server"`
	WallMS     int64          `json:"wall_ms"`
	MonoMS     int64          `json:"mono_ms"`
	Events     []Event        `json:"events"`
	Evictions  []EvictionRun  `json:"evictions"`
	Thresholds []ThresholdRun `json:"thresholds"`
}

// Kill SIGKILLs the server's JVM and waits until it is gone.
func (s *Server) Kill() { s.child.Kill() }

// Alive reports whether the JVM still runs.
func (s *Server) Alive() bool { return !s.child.Exited() }

// Pid returns the JVM's process id.
func (s *Server) Pid() int { return s.child.Pid() }

// RSS returns the JVM's resident set size in bytes.
func (s *Server) RSS() (int64, error) { return procstat.RSS(s.child.Pid()) }

// CPU returns the JVM's user + system CPU time so far.
func (s *Server) CPU() (time.Duration, error) {
	st, err := procstat.Read(s.child.Pid())
	return st.CPU, err
}

// State reads the server's current state.
func (s *Server) State(ctx context.Context) (State, error) {
	var st State
	return st, s.get(ctx, "/sdchaos/state", &st)
}

// Events reads everything the server recorded.
func (s *Server) Events(ctx context.Context) (Events, error) {
	var ev Events
	return ev, s.get(ctx, "/sdchaos/events", &ev)
}

// Config reads the settings the harness gives the server as the running
// server holds them (GET /sdchaos/config: its configuration beans, read
// back): property name → value.
func (s *Server) Config(ctx context.Context) (map[string]string, error) {
	var m map[string]string
	return m, s.get(ctx, "/sdchaos/config", &m)
}

// HostTime returns the host time of one of the server's monotonic stamps.
func (s *Server) HostTime(monoMS int64) time.Time { return time.UnixMilli(monoMS + s.MonoOffset) }

func (s *Server) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.httpc.Do(req)
	if err != nil {
		return fmt.Errorf("eureka %s: GET %s: %w", s.Name, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("eureka %s: GET %s: status %d", s.Name, path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("eureka %s: decoding %s: %w", s.Name, path, err)
	}
	return nil
}
