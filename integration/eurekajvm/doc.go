// Package eurekajvm holds no code: its tests start real Netflix Eureka
// servers and the Java DiscoveryClient through package eurekareal and check
// them against the rules read from Netflix's source (replication,
// self-preservation's minute rolls, a clock step under libfaketime, the
// client's failover) and the no-orphans rules (a closed supervisor and a
// SIGKILLed harness leave no JVM, port or temp dir). They take no machine
// lock: they time nothing whose band a neighbour's load would break (each
// allows a late JVM wake-up), and they sit among integration's locked
// packages so that go test runs them beside locked work.
package eurekajvm
