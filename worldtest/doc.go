// Package worldtest holds no code: its tests run the experiments command,
// built once for them, against the real JVM worlds behind the registry
// seam (real Netflix Eureka, a real ZooKeeper ensemble with Curator and
// Spring Cloud Zookeeper). They live apart from cmd/experiments so that
// each package's real tests stay well within go test's per-package limit.
package worldtest
