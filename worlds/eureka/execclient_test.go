package eureka

import (
	"slices"
	"testing"
)

// TestExecWorldNamesTheProtocol: a user's client on Eureka is told the
// world, the servers' service URLs (comma-separated, in order) and the
// application.
func TestExecWorldNamesTheProtocol(t *testing.T) {
	tests := []struct {
		urls []string
		want []string
	}{
		{[]string{"http://127.0.0.1:9160/eureka/"}, []string{"SDCHAOS_REGISTRY=eureka", "SDCHAOS_ENDPOINTS=http://127.0.0.1:9160/eureka/", "SDCHAOS_APP=WORKER"}},
		{[]string{"http://127.0.0.1:9162/eureka/", "http://127.0.0.1:9160/eureka/"},
			[]string{"SDCHAOS_REGISTRY=eureka", "SDCHAOS_ENDPOINTS=http://127.0.0.1:9162/eureka/,http://127.0.0.1:9160/eureka/", "SDCHAOS_APP=WORKER"}},
	}
	for _, tc := range tests {
		if got := ExecWorld(tc.urls, eurekaApp); !slices.Equal(got, tc.want) {
			t.Errorf("ExecWorld(%q) = %q, want %q", tc.urls, got, tc.want)
		}
	}
}
