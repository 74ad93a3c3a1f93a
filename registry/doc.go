// Package registry is the minimal in-memory lease registry of article 40: a
// service's instances register with a time to live (ttl), renew it with
// heartbeats, and disappear when they deregister or their lease expires.
//
// A lease's deadline is its last heartbeat (or registration) plus its ttl. A
// lease is due at any instant now ≥ deadline, but it ends only when the
// registry collects it; until then the instance is still registered and a
// Heartbeat renews it. When collection happens is what the three strategies
// (Options.Strategy) differ in:
//
//   - Lazy: nothing runs in the background. Lookup(service) collects the due
//     instances of that service before answering, so Lookup never returns a
//     due instance. Every other view is stale: Len counts due instances that
//     no Lookup has looked at, a Heartbeat revives them, and a service nobody
//     looks up keeps its dead instances forever (in memory, in counts, and for
//     anything that would notify subscribers).
//   - Scan: a background loop runs a full pass over every instance every
//     Options.ScanInterval. Between passes Lookup and Len include due
//     instances: a crashed instance stays visible for ttl plus a delay
//     uniform in [0, interval), depending on the phase of the crash relative
//     to the scan ticker. A pass costs O(N).
//   - Heap: every registration and heartbeat pushes (deadline, instance) on
//     a min-heap; a background loop sleeps until the earliest deadline (or
//     until an earlier one is pushed), then pops what is due. Renewals leave
//     the old entry in the heap; it is recognised as stale and dropped when
//     popped (lazy deletion), so the heap holds more entries than there are
//     instances. Views are stale only for the loop's wake-up latency; a pass
//     costs O(due · log heap).
//
// Expire runs one pass of the strategy on demand; with Options.Manual no
// background loop runs and the caller drives expiry (simulations, benchmarks).
// A Registry is safe for concurrent use.
package registry
