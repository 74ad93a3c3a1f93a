package nacos

import (
	"slices"
	"testing"
)

// TestExecWorldNamesTheProtocol: a user's client on Nacos is told the world,
// the server's address (its link's HTTP host:port) and the service's name,
// group and namespace.
func TestExecWorldNamesTheProtocol(t *testing.T) {
	tests := []struct {
		addr, service string
		want          []string
	}{
		{"127.0.0.1:9160", "svc", []string{"SDCHAOS_REGISTRY=nacos", "SDCHAOS_ENDPOINTS=127.0.0.1:9160", "SDCHAOS_SERVICE=svc",
			"SDCHAOS_GROUP=DEFAULT_GROUP", "SDCHAOS_NAMESPACE=public"}},
		{"127.0.0.100:9170", "orders", []string{"SDCHAOS_REGISTRY=nacos", "SDCHAOS_ENDPOINTS=127.0.0.100:9170", "SDCHAOS_SERVICE=orders",
			"SDCHAOS_GROUP=DEFAULT_GROUP", "SDCHAOS_NAMESPACE=public"}},
	}
	for _, tc := range tests {
		if got := ExecWorld(tc.addr, tc.service); !slices.Equal(got, tc.want) {
			t.Errorf("ExecWorld(%q, %q) = %q, want %q", tc.addr, tc.service, got, tc.want)
		}
	}
}
