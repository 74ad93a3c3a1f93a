package anyregistry

import (
	"testing"

	"sdchaos/scenarios/scentest"
)

// realPortBase keeps these runs' etcd members, proxies and instances apart from the other
// packages' ports; the runs go one after the other on the same ports.
const realPortBase = 22200

// TestBuiltinsRunForRealOnEtcd runs, for real on the etcd world, the built-in experiments no
// other test runs: an instance dying while the registry is unreachable at its defaults, and
// the long cut and the two rejoins with the registry unreachable for 25 s instead of 40 s or
// 120 s, which still outlasts the instances' 20 s leases (the point of all three), in 45 s runs.
// Every check is judged by etcd's rules and none goes outside.
func TestBuiltinsRunForRealOnEtcd(t *testing.T) {
	runs := []struct {
		name string
		args []string
	}{
		{"instance-dies-unreachable", nil},
		{"long-cut", []string{"--fault-for", "25s", "--duration", "45s"}},
		{"rejoin-at-once", []string{"--fault-for", "25s", "--duration", "45s"}},
		{"rejoin-jittered", []string{"--fault-for", "25s", "--duration", "45s"}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			scentest.RunReproduced(t, realPortBase, "starts a real etcd cluster", r.name,
				append([]string{"--registry", string(etcdName), "--seed", "1"}, r.args...)...)
		})
	}
}
