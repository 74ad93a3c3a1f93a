// Package nacosprotectrun holds no code: its test runs nacos-protect-threshold for real at
// both of its settings on a real Nacos server, a package of its own so that the two runs
// (about two and a half minutes each) stay within go test's per-package limit beside the
// other real-Nacos packages.
package nacosprotectrun
