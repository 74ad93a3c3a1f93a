// Package integration holds no code: its subpackages' tests run the
// experiments command, built once per set of sources (internal/cmdrun),
// against real worlds — etcd clusters it did not start (etcdexternal), and
// each world's registry seam (eurekarun, nacosrun, nacosclusterrun,
// zookeeperrun), and the long tier's nacos-protect-threshold (nacosprotectrun) — one package each, so that each package's real tests stay
// within go test's per-package limit; pages opens the stored pages in a
// browser. Each package is named for what it runs, clashing with no world's
// package. Their timed tests take the machine lock (internal/machinelock), a
// first-come, first-served queue, so that no two timed runs share the
// machine whatever order go test starts the packages in.
package integration
