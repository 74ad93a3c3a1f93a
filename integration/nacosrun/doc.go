// Package nacosrun holds no code: its tests run the experiments command
// against a real Nacos server (the registry seam, and interrupted runs that must leave
// nothing), a package of their own so that each stays within go test's
// per-package limit.
package nacosrun
