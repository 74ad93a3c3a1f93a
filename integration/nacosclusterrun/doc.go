// Package nacosclusterrun holds no code: its test runs the experiments command's cluster faults
// (member-cut-off, registry-packet-loss, quorum-loss) one after another on one real
// three-member Nacos cluster in a private network namespace, a package of its own so that it
// stays within go test's per-package limit beside the standalone server's tests.
package nacosclusterrun
