// Package eurekareal runs real Netflix Eureka: three peer-aware Eureka
// servers (Spring Cloud Netflix's @EnableEurekaServer, the JVM piece
// jvm.EurekaServer) and Netflix's Java DiscoveryClient as a scheduler (the
// piece jvm.EurekaClient), as JVM children of the harness under the
// childproc no-orphans rules, plus Go workers that speak Eureka's real REST
// API (the model's eureka.Client speaks a JSON simplification of it, which a
// real server rejects).
//
// StartCluster builds the server jar with Maven on first use (jvm.Build),
// starts the nodes on 127.0.0.1, waits until each has opened its registry
// and until a probe registration made on each node has reached every other
// one (so replication works in every direction), and returns the servers.
// A Server is killed for real (SIGKILL), read through the server's own
// endpoints (/sdchaos/state, /sdchaos/events: numbers read through the
// registry's public methods and records made by a subclass of Spring Cloud's
// registry as things happen), and, when the cluster was started with
// ClockControl, has its wall clock stepped through libfaketime.
//
// Props maps the model's durations (eureka.Config, in real time: the caller
// applies its scale first) onto the real properties and says which of the
// model's values are hard-coded in the real server (HardCoded).
//
// Sentinel errors: jvm.ErrNoJava, jvm.ErrNoMaven, jvm.ErrBuild (wrapped, from
// the build) and ErrNoFaketime (ClockControl without libfaketime).
package eurekareal
