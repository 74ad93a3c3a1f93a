// Package nacosreal is the real Nacos world: a real Nacos server and real Nacos clients for the
// Nacos article's experiments, no lookalike anywhere, behind the harness's one run path.
//
// The server is Alibaba Nacos 3.1.0 from the third-party republication on Maven Central
// (io.github.pig-mesh.nacos:nacos-server 3.1.0-bugfix; Alibaba does not publish the server
// there), built by package jvm (piece jvm.NacosServer) and run standalone with embedded
// storage, auth off, as a child of a childproc.Supervisor (StartServer). Its ports derive from
// the main (HTTP) port as Nacos derives them: gRPC main+1000, cluster gRPC main+1001, JRaft
// main−1000 (JRaft runs even standalone); all on 127.0.0.1, so the main port must be at least
// 10150 for JRaft to stay at or above 9150.
//
// Clients: Go-side ephemeral instances and a Go caller use github.com/nacos-group/nacos-sdk-go/v2
// (Register, StartGoCaller); the Java callers (Spring Cloud Alibaba + Spring Cloud LoadBalancer,
// and the plain com.alibaba.nacos:nacos-client) run as JVM children (StartJavaCaller) and report
// one JSON line per call (with its error class, typed by the exception) and per instance-list
// change. A Link puts a client's HTTP and gRPC connections to the server behind loopback fault
// proxies (package linkproxy).
//
// World is the world behind the run path (it implements rig.World without importing the rig):
// it starts a server, its instances and its callers, records every call and client report into
// the run's history.Recorder as it comes (CallLog) with each caller described by type, hands
// the timeline its targets — the named Links, the instances' Registrations, the callers as
// Restartables — for the fault values of package fault, and records what the server showed
// (its list read over its admin API, its own logs, its readiness, CPU time and RSS) in its
// Record.
package nacos
