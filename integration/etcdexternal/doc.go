// Package etcdexternal holds no code: its tests run the experiments command,
// built once, against etcd clusters it did not start (etcd's own binary as
// plain processes, on loopback or in network namespaces) and the sharded
// storm — the tests of the external mode. A package of its own so that it
// stays within go test's per-package limit; among the worlds' tests (which
// take the machine lock) so that go test, which starts packages in the order
// of their paths, runs the packages that do not take it beside the ones that
// do.
package etcdexternal
