// Package nacoscluster holds no code: its test runs the experiments command's member faults
// (quorum-loss, member-cut-off) against a real three-member Nacos cluster, a package of its
// own so that it stays within go test's per-package limit beside the standalone server's tests.
package nacoscluster
