package peerproxy

import (
	"net/http"
	"testing"
)

// TestCutDrops: which raft requests a cut of member x (id "x", its proxy on
// port 1) drops at x's proxy and at a peer's (port 2).
func TestCutDrops(t *testing.T) {
	tests := []struct {
		name         string
		oneWay       bool
		port         int
		from, method string
		want         bool
	}{
		{"both: a peer's stream to x", false, 1, "y", http.MethodGet, true},
		{"both: a peer's message to x", false, 1, "y", http.MethodPost, true},
		{"both: x's stream at a peer", false, 2, "x", http.MethodGet, true},
		{"both: x's message to a peer", false, 2, "x", http.MethodPost, true},
		{"both: between two peers", false, 2, "z", http.MethodPost, false},
		{"one-way: a peer's stream to x carries x's messages", true, 1, "y", http.MethodGet, true},
		{"one-way: a peer's message to x passes", true, 1, "y", http.MethodPost, false},
		{"one-way: x's stream at a peer carries the peer's messages", true, 2, "x", http.MethodGet, false},
		{"one-way: x's message to a peer", true, 2, "x", http.MethodPost, true},
	}
	for _, tc := range tests {
		c := Cut{ID: "x", Port: 1, OneWay: tc.oneWay}
		if got := c.dropped(tc.port, tc.from, tc.method); got != tc.want {
			t.Errorf("%s: dropped = %v, want %v", tc.name, got, tc.want)
		}
	}
}
