// Package integration holds no code: its subpackages' tests run the
// experiments command, built once per package (internal/cmdrun), against
// real worlds — etcd clusters it did not start, eureka, nacos and zookeeper —
// one package each, so that each package's real tests stay within go test's
// per-package limit. Their tests take the machine lock (scentest.LockMachine);
// go test starts packages in the order of their paths, two at a time on this
// machine, so the JVM tests that do not take it sit among them: eurekajvm
// (the real Eureka cluster's tests of package eurekareal) and, after them,
// nacosreal, so that each of those runs beside a locked package rather than
// beside the other or beside the command's own unlocked tests.
package integration
