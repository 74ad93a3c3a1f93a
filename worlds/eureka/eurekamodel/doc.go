// Package eureka is a model of Netflix Eureka that follows the source's
// rules (Netflix/eureka: AbstractInstanceRegistry, PeerAwareInstanceRegistryImpl,
// Lease, MeasuredRate, ResponseCacheImpl, PeerEurekaNode with its batching
// dispatcher, DiscoveryClient and RetryableEurekaHttpClient).
//
// The rules are plain code over an injectable clock (Registry, Tasks,
// batcher, Retryable), so they are unit-tested on clock.Virtual. Around them
// sits a thin layer: a real HTTP server that runs in its own process (the
// hidden sub-command "__eureka-server", so SIGKILL is real), peer replication
// over HTTP, and a client with register, heartbeat, fetch and failover.
//
// Every model duration comes from one Config and runs under a Scale: Factor
// model seconds pass per real second, so a 20-minute partition takes 30 real
// seconds at factor 40. Model instants are clock.Epoch plus the model time
// elapsed since the scale's real epoch, which every process of a run shares.
package eurekamodel
