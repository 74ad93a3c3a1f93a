package eurekamodel

import "time"

// History is what one server recorded, for judging a run afterwards. All At
// fields are model time since model zero on the server's monotonic model
// clock (a clock step does not move them).
type History struct {
	Server string `json:"server"`
	// Start is when the server opened for traffic (its periodic tasks start here).
	Start      time.Duration  `json:"start_ns"`
	Evictions  []EvictionRun  `json:"evictions"`
	Events     []Event        `json:"events"`
	Thresholds []ThresholdRun `json:"thresholds"`
}

// EvictionRun is one run of the eviction task.
type EvictionRun struct {
	At time.Duration `json:"at_ns"`
	// Skew is the server's clock step at the time of the run.
	Skew          time.Duration `json:"skew_ns"`
	RenewsLastMin int64         `json:"renews_last_min"`
	Threshold     int           `json:"threshold"`
	Expected      int           `json:"expected"`
	// Enabled is isLeaseExpirationEnabled(); false means self-preservation
	// refused the run.
	Enabled bool `json:"enabled"`
	// Size is the registry size before the run; Expired the leases found
	// expired; Limit the cap size − (int)(size × percent).
	Size    int      `json:"size"`
	Expired int      `json:"expired"`
	Limit   int      `json:"limit"`
	Evicted []string `json:"evicted,omitempty"`
	// Compensation is the lateness of this run added to every lease.
	Compensation time.Duration `json:"compensation_ns"`
}

// Event kinds.
const (
	EventRegister = "register"
	EventCancel   = "cancel"
	EventEvict    = "evict"
	// EventRenewUnknown is a renewal for a lease the server does not hold (404).
	EventRenewUnknown = "renew-unknown"
	// EventStep is a step of the server's wall clock (ID holds the step).
	EventStep = "clock-step"
)

// Event is a registry change (renewals are counted, not logged).
type Event struct {
	At         time.Duration `json:"at_ns"`
	Kind       string        `json:"kind"`
	ID         string        `json:"id"`
	Replicated bool          `json:"replicated,omitempty"`
	// New is set on a register that created a lease (not a re-register).
	New bool `json:"new,omitempty"`
}

// ThresholdRun is one run of the 15-minute renewal-threshold update.
type ThresholdRun struct {
	At        time.Duration `json:"at_ns"`
	Count     int           `json:"count"`
	Adopted   bool          `json:"adopted"`
	Expected  int           `json:"expected"`
	Threshold int           `json:"threshold"`
}

// Stats is a server's current state.
type Stats struct {
	Now               time.Duration `json:"now_ns"`
	Size              int           `json:"size"`
	RenewsLastMin     int64         `json:"renews_last_min"`
	Threshold         int           `json:"threshold"`
	Expected          int           `json:"expected"`
	ExpirationEnabled bool          `json:"expiration_enabled"`
	Skew              time.Duration `json:"skew_ns"`
	// NextEviction is when the next eviction run is due (model time).
	NextEviction time.Duration `json:"next_eviction_ns"`
}
