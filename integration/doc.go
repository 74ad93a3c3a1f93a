// Package integration holds no code: its subpackages' tests run the
// experiments command, built once per package (internal/cmdrun), against
// real worlds — etcd clusters it did not start, eureka, nacos and zookeeper —
// one package each, so that each package's real tests stay within go test's
// per-package limit. Their tests take the machine lock (scentest.LockMachine);
// go test starts packages in the order of their paths, and these sort between
// eurekareal and nacosreal, whose JVM tests do not take it, so that each of
// those runs beside a locked package rather than beside the other.
package integration
