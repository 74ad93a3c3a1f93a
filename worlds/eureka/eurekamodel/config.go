package eurekamodel

import (
	"fmt"
	"time"
)

// Config holds every duration and switch of the model, in model time. The
// defaults are Eureka's (and the article's parameter table).
type Config struct {
	// RenewInterval is the client heartbeat period
	// (leaseRenewalIntervalInSeconds, 30 s).
	RenewInterval time.Duration
	// LeaseDuration is how long a lease lives without renewal
	// (leaseExpirationDurationInSeconds, 90 s).
	LeaseDuration time.Duration
	// FetchInterval is the client registry fetch period
	// (registryFetchIntervalSeconds, 30 s; the article recommends 15 s).
	FetchInterval time.Duration

	// EvictionInterval is the eviction task period (evictionIntervalTimerInMs, 60 s).
	EvictionInterval time.Duration
	// RenewsBucket is the MeasuredRate sample interval behind renewsLastMin (60 s).
	RenewsBucket time.Duration
	// ThresholdUpdate is how often the expected-client count is recomputed
	// (renewalThresholdUpdateIntervalMs, 15 min).
	ThresholdUpdate time.Duration
	// ExpectedRenewInterval is expectedClientRenewalIntervalSeconds (30 s),
	// the divisor of 60 in the threshold formula.
	ExpectedRenewInterval time.Duration
	// RenewalPercent is renewalPercentThreshold (0.85).
	RenewalPercent float64
	// SelfPreservation is enableSelfPreservation (true).
	SelfPreservation bool
	// LeaseBug reproduces Lease.renew() setting lastUpdate = now + duration,
	// so a renewed lease lives about twice its duration (true, as the source).
	LeaseBug bool
	// OpenCount is the expected-client count a server opens with when its
	// start-up sync found nothing: Spring Cloud's defaultOpenForTrafficCount (1).
	OpenCount int

	// ResponseCache turns on the read-only response cache (useReadOnlyResponseCache).
	ResponseCache bool
	// CacheUpdate is the read-only cache refresh period, aligned to multiples
	// of itself (responseCacheUpdateIntervalMs, 30 s).
	CacheUpdate time.Duration

	// BatchDelay releases a replication batch once its oldest task is this
	// old (maxBatchingDelay, 500 ms).
	BatchDelay time.Duration
	// BatchSize is the largest replication batch (250).
	BatchSize int
	// ReplicationExpiry drops a replication task not sent within this time
	// of its submission (the renewal interval / maxProcessingDelayMs, 30 s).
	ReplicationExpiry time.Duration
	// CongestionRetry is the pause after a peer timed out (serverUnavailableSleepTimeMs, 1 s).
	CongestionRetry time.Duration
	// NetworkRetry is the pause after a peer refused the connection (retrySleepTimeMs, 100 ms).
	NetworkRetry time.Duration
	// PeerTimeout bounds one replication request (peerNodeConnect/ReadTimeoutMs,
	// 200 ms; the article recommends 1000 ms).
	PeerTimeout time.Duration

	// ConnectTimeout and ReadTimeout bound a client request (5 s and 8 s).
	ConnectTimeout, ReadTimeout time.Duration
	// Retries is RetryableEurekaHttpClient's attempts per request (3).
	Retries int
	// QuarantineRefresh is retryableClientQuarantineRefreshPercentage (0.66).
	QuarantineRefresh float64
}

// DefaultConfig returns Eureka's defaults.
func DefaultConfig() Config {
	return Config{
		RenewInterval: 30 * time.Second, LeaseDuration: 90 * time.Second, FetchInterval: 30 * time.Second,
		EvictionInterval: 60 * time.Second, RenewsBucket: 60 * time.Second, ThresholdUpdate: 15 * time.Minute,
		ExpectedRenewInterval: 30 * time.Second, RenewalPercent: 0.85, SelfPreservation: true, LeaseBug: true,
		OpenCount: 1, ResponseCache: true, CacheUpdate: 30 * time.Second,
		BatchDelay: 500 * time.Millisecond, BatchSize: 250, ReplicationExpiry: 30 * time.Second,
		CongestionRetry: time.Second, NetworkRetry: 100 * time.Millisecond, PeerTimeout: 200 * time.Millisecond,
		ConnectTimeout: 5 * time.Second, ReadTimeout: 8 * time.Second, Retries: 3, QuarantineRefresh: 0.66,
	}
}

// Validate reports impossible values, quoting them.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"renew interval", c.RenewInterval}, {"lease duration", c.LeaseDuration}, {"fetch interval", c.FetchInterval},
		{"eviction interval", c.EvictionInterval}, {"renews bucket", c.RenewsBucket},
		{"threshold update interval", c.ThresholdUpdate}, {"expected renew interval", c.ExpectedRenewInterval},
		{"cache update interval", c.CacheUpdate}, {"batch delay", c.BatchDelay},
		{"replication expiry", c.ReplicationExpiry}, {"congestion retry", c.CongestionRetry},
		{"network retry", c.NetworkRetry}, {"peer timeout", c.PeerTimeout},
		{"connect timeout", c.ConnectTimeout}, {"read timeout", c.ReadTimeout},
	} {
		if d.v <= 0 {
			return fmt.Errorf("%s (%s) must be positive", d.name, d.v)
		}
	}
	return c.validateRest()
}

func (c Config) validateRest() error {
	switch {
	case c.RenewInterval >= c.LeaseDuration:
		return fmt.Errorf("renew interval (%s) must be shorter than the lease duration (%s)", c.RenewInterval, c.LeaseDuration)
	case c.RenewalPercent <= 0 || c.RenewalPercent > 1:
		return fmt.Errorf("renewal percent threshold (%g) must be within (0, 1]", c.RenewalPercent)
	case c.OpenCount < 0:
		return fmt.Errorf("open count (%d) must not be negative", c.OpenCount)
	case c.BatchSize < 1:
		return fmt.Errorf("batch size (%d) must be at least 1", c.BatchSize)
	case c.Retries < 1:
		return fmt.Errorf("client retries (%d) must be at least 1", c.Retries)
	case c.QuarantineRefresh < 0 || c.QuarantineRefresh > 1:
		return fmt.Errorf("quarantine refresh percentage (%g) must be within [0, 1]", c.QuarantineRefresh)
	}
	return nil
}
