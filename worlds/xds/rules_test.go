package xds

import (
	"testing"
	"time"

	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

func TestDeletedWhenOmitted(t *testing.T) {
	tests := []struct {
		typeURL string
		ignore  bool
		want    bool
	}{
		{resource.ListenerType, false, true},
		{resource.ListenerType, true, false},
		{resource.ClusterType, false, true},
		{resource.ClusterType, true, false},
		{resource.RouteType, false, false},
		{resource.EndpointType, false, false},
	}
	for _, tc := range tests {
		if got := DeletedWhenOmitted(tc.typeURL, tc.ignore); got != tc.want {
			t.Errorf("DeletedWhenOmitted(%s, ignore %v) = %v, want %v", tc.typeURL, tc.ignore, got, tc.want)
		}
	}
}

func TestServesAfterRestart(t *testing.T) {
	tests := []struct {
		start  StartSnapshot
		ignore bool
		want   bool
	}{
		{FromRegistry, false, true},
		{NoSnapshot, false, true},
		{EmptySnapshot, false, false},
		{EmptySnapshot, true, true},
		{PartialSnapshot, false, false},
		{PartialSnapshot, true, false},
		{StartSnapshot(99), true, false},
	}
	for _, tc := range tests {
		if got, why := ServesAfterRestart(tc.start, tc.ignore); got != tc.want || why == "" {
			t.Errorf("ServesAfterRestart(%s, ignore %v) = %v (%q), want %v", tc.start, tc.ignore, got, why, tc.want)
		}
	}
}

func TestReconnectWithin(t *testing.T) {
	tests := []struct {
		down     time.Duration
		min, max time.Duration
	}{
		// attempts at shortest: 0.8, 1.28, 2.05, 3.28, 5.24 s: 10 s is passed at
		// k = 4 (6.55 s): at most 1.2 × (6.55 + 10.49) = 20.4 s.
		{0, 3 * time.Second, 3200 * time.Millisecond},
		{10 * time.Second, 20 * time.Second, 21 * time.Second},
		{time.Hour, 288 * time.Second, 288 * time.Second},
	}
	for _, tc := range tests {
		if got := ReconnectWithin(tc.down); got < tc.min || got > tc.max {
			t.Errorf("ReconnectWithin(%s) = %s, want within [%s, %s]", tc.down, got, tc.min, tc.max)
		}
	}
}

func TestServesWhileRegistryLost(t *testing.T) {
	if !ServesWhileRegistryLost(KeepLast) || ServesWhileRegistryLost(ClearEndpoints) {
		t.Error("keep must serve and clear must not")
	}
}
