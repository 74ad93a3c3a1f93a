// Package nacospackets holds no code: its test runs the experiments command's packet loss on a
// real three-member Nacos cluster (registry-packet-loss: every client packet dropped, in a
// private network namespace), a package of its own so that it stays within go test's
// per-package limit beside the cluster's member faults (integration/nacoscluster).
package nacospackets
