package dns

import (
	"time"

	"sdchaos/experiment"
)

// The CoreDNS rules below are read from github.com/coredns/coredns v1.15.0
// (the version go.mod resolves; see Version), the gRPC rule from
// google.golang.org/grpc v1.84.0, the Go resolver's from Go 1.26's net.

// EtcdTimeout bounds every etcd read of the etcd plugin: each lookup is a
// clientv3 Get under context.WithTimeout(ctx, etcdTimeout)
// (plugin/etcd/etcd.go:28 etcdTimeout = 5 * time.Second, used at :90).
const EtcdTimeout = 5 * time.Second

// EtcdReadBasis says why a lookup fails once etcd's quorum is lost.
const EtcdReadBasis = "the etcd plugin neither watches nor caches: every lookup is a prefix Get without " +
	"WithSerializable, i.e. linearizable (plugin/etcd/etcd.go:96 e.Client.Get(ctx, path, WithPrefix())), " +
	"under etcdTimeout = 5 s (etcd.go:28, :90); a failed Get is answered SERVFAIL " +
	"(plugin/etcd/handler.go:62 BackendError(..., RcodeServerFailure, ...))"

// The etcd plugin's lease clamp: a record on a lease answers with the
// lease's remaining TTL clamped to [min-lease-ttl, max-lease-ttl], or the
// record's own ttl when that is smaller (plugin/etcd/etcd.go:26-27
// defaultLeaseMinTTL = 30, defaultLeaseMaxTTL = 86400; Etcd.TTL at :167).
const (
	DefaultMinLeaseTTL = 30 * time.Second
	DefaultMaxLeaseTTL = 86400 * time.Second
	// DefaultRecordTTL is the answer's TTL when neither the record nor a
	// lease sets one (etcd.go:25 defaultTTL = 300).
	DefaultRecordTTL = 300 * time.Second
)

// AnswerTTL is the TTL the etcd plugin gives a record of ttl recordTTL
// (0: unset) on a lease with leaseLeft remaining (0: no lease), with the
// lease clamp [minLease, maxLease] (Etcd.TTL, plugin/etcd/etcd.go:167-211).
func AnswerTTL(recordTTL, leaseLeft, minLease, maxLease time.Duration) time.Duration {
	var etcdTTL time.Duration
	if leaseLeft > 0 {
		etcdTTL = min(max(leaseLeft, minLease), maxLease)
	}
	switch {
	case etcdTTL == 0 && recordTTL == 0:
		return DefaultRecordTTL
	case etcdTTL == 0:
		return recordTTL
	case recordTTL == 0:
		return etcdTTL
	}
	return min(etcdTTL, recordTTL)
}

// The cache plugin's TTL bounds: a positive answer is cached for its TTL
// clamped to [CacheMinTTL, the cache's TTL] (plugin/cache/cache.go:330
// computeTTL, :450; minTTL = dnsutil.MinimalDefaultTTL = 5 s at
// cache.go:613 and plugin/pkg/dnsutil/ttl.go:55; maxTTL = 1 h, ttl.go:57).
const (
	CacheMinTTL = 5 * time.Second
	CacheMaxTTL = time.Hour
)

// CachedFor is how long the cache plugin keeps an answer of TTL answerTTL
// under a cache whose TTL is maxTTL (0: the plugin's 1 h).
func CachedFor(answerTTL, maxTTL time.Duration) time.Duration {
	if maxTTL == 0 {
		maxTTL = CacheMaxTTL
	}
	return min(max(answerTTL, CacheMinTTL), maxTTL)
}

// DefaultServFailTTL is how long the cache plugin keeps a SERVFAIL when its
// servfail option is not set (plugin/cache/cache.go:85 failttl: minNTTL,
// :615 minNTTL = dnsutil.MinimalDefaultTTL = 5 s; a failure the next
// plugin did not write is stored too, plugin/cache/handler.go:56-58).
const DefaultServFailTTL = 5 * time.Second

// DefaultStaleFor is serve_stale's default DURATION
// (plugin/cache/setup.go:186 ca.staleUpTo = 1 * time.Hour).
const DefaultStaleFor = time.Hour

// StaleAnswerTTL is the TTL of a stale answer by default: the plugin moves
// "now" to the entry's expiry so the reply carries TTL 0
// (plugin/cache/handler.go:92-93; setup.go:187 staleTTL = 0 keeps it).
const StaleAnswerTTL = 0

// StaleBasis says what serve_stale does in each mode.
const StaleBasis = "serve_stale immediate answers with the expired entry at once and refreshes it in the " +
	"background (plugin/cache/handler.go:94-95 tryPrefetch); verify asks the upstream first and serves the " +
	"expired entry only when the refresh is not NOERROR/NXDOMAIN (handler.go:65-85, verifyStaleResponseWriter " +
	"cache.go:601); a stale reply has TTL 0 (handler.go:92-93)"

// StaleServFailBasis says why a serve_stale cache answers SERVFAIL after
// its upstream healed: a cached SERVFAIL is an entry like any other, served
// expired within serve_stale's duration (getIfNotStale,
// plugin/cache/handler.go:267-283) and, in immediate mode, before the
// refresh (handler.go:92-97); the next query gets the refreshed answer (a
// valid positive entry wins over a SERVFAIL, handler.go:272-279).
const StaleServFailBasis = "a cached SERVFAIL is served expired within serve_stale's duration " +
	"(plugin/cache/handler.go:267-283) and immediate mode answers before refreshing (handler.go:92-97): " +
	"the first query after the heal gets the old SERVFAIL, the next the refreshed answer (handler.go:272-279)"

// The forward plugin's timing (a node-local cache layer's path to the
// server behind it): each try waits readTimeout, a query makes at most
// ForwardAttempts tries per upstream and is given up after defaultTimeout
// (plugin/forward/forward.go:33 defaultReadTimeout = 2 s, :35
// defaultConnectAttemptsPerUpstream = 2, :364 defaultTimeout = 5 s), then
// answered SERVFAIL.
const (
	ForwardReadTimeout = 2 * time.Second
	ForwardAttempts    = 2
	ForwardDeadline    = 5 * time.Second
)

// ForwardServFail bounds, in seconds, how long a node-local layer with one
// upstream takes to answer SERVFAIL for a name it has not cached once the
// upstream is gone: its tries, each at most the read timeout, within the
// deadline, plus slack.
func ForwardServFail() experiment.Band {
	hi := min(ForwardAttempts*ForwardReadTimeout, ForwardDeadline) + slack
	return experiment.Band{Lo: 0, Hi: seconds(hi), Basis: "the forward plugin tries an upstream at most " +
		"defaultConnectAttemptsPerUpstream = 2 times (plugin/forward/forward.go:35, :239-243), each read bounded by " +
		"defaultReadTimeout = 2 s (:33), all within defaultTimeout = 5 s (:364), then answers SERVFAIL"}
}

// GoResolverCaches is false: Go's resolver sends its queries on every
// lookup and keeps no answer cache (src/net/dnsclient_unix.go:297
// tryOneName exchanges with the servers each call; Go 1.26).
const GoResolverCaches = false

// Go's resolver's defaults when resolv.conf sets none: each query waits
// GoResolverTimeout and a lookup makes GoResolverAttempts rounds over the
// servers (src/net/dnsconfig_unix.go:22-23 timeout: 5 * time.Second,
// attempts: 2); a SERVFAIL moves on to the next server and round
// (dnsclient_unix.go:328-335). The etcd plugin's SERVFAIL comes after
// EtcdTimeout, as long as one such wait: a lookup through a server that
// lost its etcd may end in a timeout or in SERVFAIL, whichever is first.
const (
	GoResolverTimeout  = 5 * time.Second
	GoResolverAttempts = 2
)

// GRPCMinResolutionInterval is gRPC-Go's dns resolver's floor between two
// resolutions: after a successful one it waits for ResolveNow, and at least
// this long (internal/resolver/dns/dns_resolver.go:52
// MinResolutionInterval = 30 * time.Second, used at :223).
const GRPCMinResolutionInterval = 30 * time.Second

// GRPCDNSBasis says what gRPC-Go's dns resolver reads.
const GRPCDNSBasis = "gRPC-Go's dns resolver reads A/AAAA records only (SRV only for grpclb, EnableSRVLookups = false, " +
	"dns_resolver.go:48), takes the port from the target (default 443, :74), re-resolves only on ResolveNow and " +
	"at most every 30 s (:52, :216-228)"

// AHostsDeduplicated notes that an A answer lists each host once
// (plugin/backend_lookup.go:79-80 dup[serv.Host]): instances that shared
// one address would be one A record (SRV records carry their ports), so
// each instance has an address of its own (instanceHost).
const AHostsDeduplicated = true

// slack is the allowance for timers and scheduling on a shared host.
const slack = 500 * time.Millisecond

// seconds returns d in seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }

// ServFailAfterQuorumLoss bounds, in seconds, how long a query sent to a
// server without a cache takes to be answered SERVFAIL once etcd's quorum
// is lost: at most the plugin's etcd timeout, plus slack.
func ServFailAfterQuorumLoss() experiment.Band {
	return experiment.Band{Lo: 0, Hi: seconds(EtcdTimeout + slack), Basis: EtcdReadBasis}
}

// RecordGoneAfterCrash bounds, in seconds after an instance stopped
// renewing, when a query through a server stops listing its record: no
// earlier than its lease can expire (leaseTTL - renew: the last renewal was
// at most renew before the crash) and no later than the lease's TTL plus
// how long an answer may be cached (cachedFor: 0 without a cache) plus
// slack for etcd's lease expiry check.
func RecordGoneAfterCrash(leaseTTL, renew, cachedFor time.Duration) experiment.Band {
	return experiment.Band{Lo: seconds(leaseTTL - renew - slack), Hi: seconds(leaseTTL + cachedFor + time.Second + slack),
		Basis: "the record lives on the instance's lease (gone after its TTL without renewals), then in the cache " +
			"for max(answer TTL, 5 s) (plugin/cache/cache.go:330, :450); the etcd plugin itself keeps nothing " +
			"(plugin/etcd/etcd.go:96); etcd revokes expired leases on a 500 ms tick (server/v3/lease/lessor.go:623)"}
}
