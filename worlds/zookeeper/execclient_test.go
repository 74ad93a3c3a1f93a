package zookeeper

import (
	"slices"
	"testing"
)

// TestExecWorldNamesTheProtocol: a user's client on ZooKeeper is told the
// world, the connect string with its chroot, Curator's base path and the
// service.
func TestExecWorldNamesTheProtocol(t *testing.T) {
	tests := []struct {
		connect string
		want    []string
	}{
		{"127.0.0.1:9160,127.0.0.1:9161,127.0.0.1:9162/sdchaos-0a1b2c", []string{"SDCHAOS_REGISTRY=zookeeper",
			"SDCHAOS_ENDPOINTS=127.0.0.1:9160,127.0.0.1:9161,127.0.0.1:9162/sdchaos-0a1b2c", "SDCHAOS_BASE_PATH=/services", "SDCHAOS_SERVICE=svc"}},
		{"127.0.0.1:9160", []string{"SDCHAOS_REGISTRY=zookeeper", "SDCHAOS_ENDPOINTS=127.0.0.1:9160", "SDCHAOS_BASE_PATH=/services", "SDCHAOS_SERVICE=svc"}},
	}
	for _, tc := range tests {
		if got := ExecWorld(tc.connect, DefaultBasePath, "svc"); !slices.Equal(got, tc.want) {
			t.Errorf("ExecWorld(%q) = %q, want %q", tc.connect, got, tc.want)
		}
	}
}
