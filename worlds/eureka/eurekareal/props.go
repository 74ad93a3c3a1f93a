package eurekareal

import (
	"fmt"
	"strconv"
	"time"
)

// Props are the real Eureka settings of a run, in real time (the caller
// scales the model's durations first). Field names follow the model's
// eureka.Config; each field's comment names the real property (read in
// spring-cloud-netflix 5.0.3 EurekaServerConfigBean, InstanceRegistryProperties
// and Netflix eureka 2.0.6 DefaultEurekaClientConfig) and who reads it.
type Props struct {
	// RenewInterval is the workers' heartbeat period, sent by each worker in
	// its registration (leaseInfo.renewalIntervalInSecs: whole seconds). The
	// server does not use it; it only echoes it.
	RenewInterval time.Duration
	// LeaseDuration is sent by each worker too (leaseInfo.durationInSecs,
	// whole seconds): the server takes a lease's duration from the
	// registrant (PeerAwareInstanceRegistryImpl.register), not from a
	// server property.
	LeaseDuration time.Duration
	// FetchInterval is eureka.client.registry-fetch-interval-seconds of each
	// server's embedded client (whose view the threshold update counts) and
	// the Java scheduler's fetch period (whole seconds).
	FetchInterval time.Duration
	// EvictionInterval is eureka.server.eviction-interval-timer-in-ms.
	EvictionInterval time.Duration
	// ThresholdUpdate is eureka.server.renewal-threshold-update-interval-ms
	// (an int of ms in the server: at most about 24 days).
	ThresholdUpdate time.Duration
	// ExpectedRenewInterval is
	// eureka.server.expected-client-renewal-interval-seconds (whole seconds).
	ExpectedRenewInterval time.Duration
	// RenewalPercent is eureka.server.renewal-percent-threshold.
	RenewalPercent float64
	// SelfPreservation is eureka.server.enable-self-preservation.
	SelfPreservation bool
	// OpenCount is eureka.instance.registry.default-open-for-traffic-count
	// (Spring Cloud: the expected-client count a node opens with when its
	// start-up sync found nothing).
	OpenCount int
	// ResponseCache is eureka.server.use-read-only-response-cache.
	ResponseCache bool
	// CacheUpdate is eureka.server.response-cache-update-interval-ms.
	CacheUpdate time.Duration
	// ReplicationExpiry is eureka.server.max-time-for-replication (ms):
	// PeerEurekaNode drops a replication task not sent within it.
	ReplicationExpiry time.Duration
	// PeerTimeout is both eureka.server.peer-node-connect-timeout-ms and
	// eureka.server.peer-node-read-timeout-ms.
	PeerTimeout time.Duration
	// WaitWhenSyncEmpty is eureka.server.wait-time-in-ms-when-sync-empty:
	// isBelowRenewThresold() answers 0 until the node has been up this long.
	WaitWhenSyncEmpty time.Duration
	// SyncRetries and SyncRetryWait are eureka.server.registry-sync-retries
	// and eureka.server.registry-sync-retry-wait-ms: how often a starting
	// node tries to copy the registry from its peers while it finds nothing
	// (0: no start-up sync, the node opens at once).
	SyncRetries   int
	SyncRetryWait time.Duration
	// ConnectTimeout and ReadTimeout are the Java client's
	// eureka.eurekaServer.connectTimeout and eureka.eurekaServer.readTimeout
	// (whole seconds, rounded up: see ClientProps), and the Go workers'
	// timeouts.
	ConnectTimeout, ReadTimeout time.Duration
	// QuarantineRefresh is the Java client's
	// eureka.transport.retryableClientQuarantineRefreshPercentage.
	QuarantineRefresh float64
}

// DefaultProps returns the real defaults (the model's DefaultConfig), with no
// start-up sync (a fresh cluster finds nothing to copy).
func DefaultProps() Props {
	return Props{
		RenewInterval: 30 * time.Second, LeaseDuration: 90 * time.Second, FetchInterval: 30 * time.Second,
		EvictionInterval: 60 * time.Second, ThresholdUpdate: 15 * time.Minute, ExpectedRenewInterval: 30 * time.Second,
		RenewalPercent: 0.85, SelfPreservation: true, OpenCount: 1, ResponseCache: true, CacheUpdate: 30 * time.Second,
		ReplicationExpiry: 30 * time.Second, PeerTimeout: 200 * time.Millisecond, WaitWhenSyncEmpty: 5 * time.Minute,
		SyncRetryWait: 30 * time.Second, ConnectTimeout: 5 * time.Second, ReadTimeout: 8 * time.Second,
		QuarantineRefresh: 0.66,
	}
}

// HardCoded lists the model's eureka.Config values that the real server
// fixes in code (they cannot be scaled), with where they are fixed.
var HardCoded = []struct{ Field, Value, Where string }{
	{"RenewsBucket", "60 s", "AbstractInstanceRegistry: renewsLastMin = new MeasuredRate(1000 * 60 * 1)"},
	{"LeaseBug", "true", "Lease.renew(): lastUpdateTimestamp = now + duration; isExpired adds duration again"},
	{"BatchDelay", "500 ms", "PeerEurekaNode.MAX_BATCHING_DELAY_MS"},
	{"BatchSize", "250", "PeerEurekaNode.BATCH_SIZE"},
	{"NetworkRetry", "100 ms", "PeerEurekaNode.RETRY_SLEEP_TIME_MS"},
	{"CongestionRetry", "1000 ms", "PeerEurekaNode.SERVER_UNAVAILABLE_SLEEP_TIME_MS"},
	{"Retries", "3", "RetryableEurekaHttpClient.DEFAULT_NUMBER_OF_RETRIES (EurekaHttpClients passes the constant)"},
}

// ServerArgs returns the Spring command-line properties of Props, or an
// error naming the first property a value cannot be expressed in.
func (p Props) ServerArgs() ([]string, error) {
	var c conv
	args := []string{
		c.secs("eureka.client.registry-fetch-interval-seconds", p.FetchInterval),
		c.ms("eureka.server.eviction-interval-timer-in-ms", p.EvictionInterval),
		c.ms("eureka.server.renewal-threshold-update-interval-ms", p.ThresholdUpdate),
		c.secs("eureka.server.expected-client-renewal-interval-seconds", p.ExpectedRenewInterval),
		c.ms("eureka.server.response-cache-update-interval-ms", p.CacheUpdate),
		c.ms("eureka.server.max-time-for-replication", p.ReplicationExpiry),
		c.ms("eureka.server.peer-node-connect-timeout-ms", p.PeerTimeout),
		c.ms("eureka.server.peer-node-read-timeout-ms", p.PeerTimeout),
		c.ms0("eureka.server.wait-time-in-ms-when-sync-empty", p.WaitWhenSyncEmpty),
		c.ms0("eureka.server.registry-sync-retry-wait-ms", p.SyncRetryWait),
		prop("eureka.server.registry-sync-retries", strconv.Itoa(p.SyncRetries)),
		prop("eureka.server.renewal-percent-threshold", strconv.FormatFloat(p.RenewalPercent, 'g', -1, 64)),
		prop("eureka.server.enable-self-preservation", strconv.FormatBool(p.SelfPreservation)),
		prop("eureka.server.use-read-only-response-cache", strconv.FormatBool(p.ResponseCache)),
		prop("eureka.instance.registry.default-open-for-traffic-count", strconv.Itoa(p.OpenCount)),
	}
	return args, c.err
}

// ClientProps returns the Java client's system properties (-Dkey=value) of
// Props. The client reads its connect and read timeouts in whole seconds
// (eureka-client 2.0.6: DefaultEurekaClientConfig.getEurekaServerConnectTimeoutSeconds
// and getEurekaServerReadTimeoutSeconds, which EurekaClientFactoryBuilder.withClientConfig
// multiplies by 1000 into Jersey's milliseconds), so each is rounded up to
// whole seconds: the shortest timeout the real client can take that is not
// shorter than asked.
func (p Props) ClientProps() ([]string, error) {
	if p.ConnectTimeout <= 0 || p.ReadTimeout <= 0 {
		return nil, fmt.Errorf("the Java client's timeouts must be positive (connect %s, read %s)", p.ConnectTimeout, p.ReadTimeout)
	}
	out := []string{
		"-Deureka.eurekaServer.connectTimeout=" + strconv.Itoa(ceilSeconds(p.ConnectTimeout)),
		"-Deureka.eurekaServer.readTimeout=" + strconv.Itoa(ceilSeconds(p.ReadTimeout)),
		"-Deureka.transport.retryableClientQuarantineRefreshPercentage=" + strconv.FormatFloat(p.QuarantineRefresh, 'g', -1, 64),
	}
	return out, nil
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

// LeaseSeconds returns the workers' leaseInfo (renewal interval and
// duration, whole seconds), or an error naming the field.
func (p Props) LeaseSeconds() (renew, duration int, err error) {
	var c conv
	renew = c.wholeSecs("leaseInfo.renewalIntervalInSecs (RenewInterval)", p.RenewInterval)
	duration = c.wholeSecs("leaseInfo.durationInSecs (LeaseDuration)", p.LeaseDuration)
	return renew, duration, c.err
}

// Validate reports the first value the real system cannot take.
func (p Props) Validate() error {
	if _, err := p.ServerArgs(); err != nil {
		return err
	}
	if _, err := p.ClientProps(); err != nil {
		return err
	}
	if _, _, err := p.LeaseSeconds(); err != nil {
		return err
	}
	switch {
	case p.RenewalPercent <= 0 || p.RenewalPercent > 1:
		return fmt.Errorf("eureka.server.renewal-percent-threshold (%g) must be within (0, 1]", p.RenewalPercent)
	case p.OpenCount < 0 || p.SyncRetries < 0:
		return fmt.Errorf("default-open-for-traffic-count (%d) and registry-sync-retries (%d) must not be negative", p.OpenCount, p.SyncRetries)
	}
	return nil
}

// conv converts durations to property values and keeps the first error.
type conv struct{ err error }

func (c *conv) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

// wholeSecs returns d in seconds; d must be a positive whole number of them.
func (c *conv) wholeSecs(name string, d time.Duration) int {
	if d < time.Second || d%time.Second != 0 {
		c.fail("%s takes whole seconds (at least 1 s); %s cannot be expressed (change the time scale)", name, d)
	}
	return int(d / time.Second)
}

func (c *conv) secs(name string, d time.Duration) string {
	return prop(name, strconv.Itoa(c.wholeSecs(name, d)))
}

// ms returns --name=<d in ms>; d must be at least 1 ms, whole ms, and fit an int.
func (c *conv) ms(name string, d time.Duration) string {
	if d < time.Millisecond {
		c.fail("%s takes whole milliseconds (at least 1 ms); %s cannot be expressed", name, d)
	}
	return c.ms0(name, d)
}

// ms0 is ms allowing zero.
func (c *conv) ms0(name string, d time.Duration) string {
	switch {
	case d < 0 || d%time.Millisecond != 0:
		c.fail("%s takes whole milliseconds; %s cannot be expressed", name, d)
	case d.Milliseconds() > 1<<31-1:
		c.fail("%s is an int of milliseconds in the server; %s is too long", name, d)
	}
	return prop(name, strconv.FormatInt(d.Milliseconds(), 10))
}

func prop(name, value string) string { return "--" + name + "=" + value }
