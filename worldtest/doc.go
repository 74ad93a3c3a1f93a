// Package worldtest holds no code: its tests run the experiments command,
// built once for them, against the real JVM worlds (real Netflix Eureka, a
// real Nacos server, a real ZooKeeper ensemble with Curator and Spring
// Cloud Zookeeper): the registry seam on each, and runs interrupted with
// SIGINT, SIGTERM or SIGKILL that must leave nothing behind. They live
// apart from cmd/experiments so that each package's real tests stay well
// within go test's per-package limit.
package worldtest
