package main

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestUpInstances: Eureka's instance list, a lone instance as an object, or
// none, gives the UP instances' ipAddr:port.
func TestUpInstances(t *testing.T) {
	tests := []struct {
		name, raw string
		want      []string
	}{
		{"a list", `[{"ipAddr":"127.0.0.1","status":"UP","port":{"$":9160,"@enabled":"true"}},
			{"ipAddr":"127.0.0.1","status":"DOWN","port":{"$":9161}},{"ipAddr":"127.0.0.2","status":"UP","port":{"$":9162}}]`,
			[]string{"127.0.0.1:9160", "127.0.0.2:9162"}},
		{"one object", `{"ipAddr":"127.0.0.1","status":"UP","port":{"$":9160}}`, []string{"127.0.0.1:9160"}},
		{"none", ``, []string{}},
		{"null", `null`, []string{}},
	}
	for _, tc := range tests {
		got, err := upInstances(json.RawMessage(tc.raw))
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestNewListerNamesTheWorlds: an unknown SDCHAOS_REGISTRY is refused.
func TestNewListerNamesTheWorlds(t *testing.T) {
	tests := []struct {
		registry string
		ok       bool
	}{{"eureka", true}, {"nacos", true}, {"consul", false}}
	for _, tc := range tests {
		l, err := newLister(settings{registry: tc.registry, endpoints: []string{"http://127.0.0.1:9160/eureka/"}})
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.registry, err, tc.ok)
		}
		if l != nil {
			l.close()
		}
	}
}
