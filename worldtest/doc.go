// Package worldtest holds no code: its subpackages' tests run the
// experiments command, built once per package (internal/cmdrun), against
// the real JVM worlds — eureka, nacos and zookeeper — one package each, so
// that each package's real tests stay within go test's per-package limit.
package worldtest
