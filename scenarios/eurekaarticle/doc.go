// Package eurekaarticle is the room of the Eureka article ("failover:
// client cache, peer replication, self-preservation"). By default
// (--eureka model) every scenario runs the source-faithful model of package
// eureka: clusters of 3 server processes on loopback with peer replication,
// workers that register and renew, and schedulers whose discovery clients
// fetch and fail over; with --eureka real the servers are real Netflix
// Eureka servers (Spring Cloud Netflix, each a JVM built by Maven on first
// use, package eurekareal) and the schedulers' clients Netflix's Java
// DiscoveryClient. Model time runs --time-scale times faster than real time.
//
// Its scenarios: eureka-failover (test 4.1, kill -9 of the schedulers'
// server), self-preservation (test 4.2, every worker partitioned from the
// servers), eureka-drill (test 4.3, a server down, workers dead, latency),
// replication-lag (section 2.2, peer replication and client visibility) and
// clock-skew (section 5.4, a server's wall clock steps). Each is a plan (its
// Run, in <scenario>.go: the rig, the traffic and a timeline of typed fault
// and probe steps, with the servers' histories and the clients' fetches
// stored as the history's Data) and a judge (<scenario>_judge.go: the typed
// measurement filled from the recorded history, and the checks derived from
// it). The bands come from package eureka's theory (worlds/eureka/eurekamodel/theory.go).
package eurekaarticle
