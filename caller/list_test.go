package caller

import (
	"errors"
	"testing"
	"time"
)

var (
	a   = Endpoint{"j1", "127.0.0.1:1"}
	b   = Endpoint{"j2", "127.0.0.1:2"}
	c   = Endpoint{"j3", "127.0.0.1:3"}
	abc = []Endpoint{a, b, c}
	t0  = time.Unix(1000, 0)
)

func picks(l *List, n int, now time.Time) []string {
	var out []string
	for i := 0; i < n; i++ {
		ep, err := l.Pick(now)
		if err != nil {
			out = append(out, "ERR")
			continue
		}
		out = append(out, ep.ID)
	}
	return out
}

func TestListPolicies(t *testing.T) {
	fail := errors.New("registry down")
	tests := []struct {
		name    string
		policy  Policy
		applied []error // nil = success with eps below
		eps     []Endpoint
		want    int // listed after the last apply
		canPick bool
	}{
		{"keep on error", Policy{OnError: KeepList}, []error{fail}, nil, 3, true},
		{"clear on error", Policy{OnError: ClearList}, []error{fail}, nil, 0, false},
		{"empty replaces", Policy{}, []error{nil}, []Endpoint{}, 0, false},
		{"empty ignored", Policy{OnEmpty: IgnoreEmpty}, []error{nil}, []Endpoint{}, 3, true},
		{"stale fallback", Policy{OnEmpty: StaleFallback}, []error{nil}, []Endpoint{}, 0, true},
		{"stale fallback after clear", Policy{OnError: ClearList, OnEmpty: StaleFallback}, []error{fail}, nil, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewList(tc.policy)
			l.Apply(abc, nil)
			for _, err := range tc.applied {
				l.Apply(tc.eps, err)
			}
			if l.Len() != tc.want {
				t.Errorf("Len = %d, want %d", l.Len(), tc.want)
			}
			_, err := l.Pick(t0)
			if (err == nil) != tc.canPick {
				t.Errorf("Pick err = %v, want pickable=%v", err, tc.canPick)
			}
		})
	}
}

func TestRoundRobinAndEjection(t *testing.T) {
	l := NewList(Policy{Eject: 30 * time.Second})
	l.Apply(abc, nil)
	if got := picks(l, 4, t0); got[0] != "j1" || got[1] != "j2" || got[2] != "j3" || got[3] != "j1" {
		t.Fatalf("round robin = %v", got)
	}
	l.Report(b, false, t0)
	got := picks(l, 4, t0.Add(time.Second))
	for _, id := range got {
		if id == "j2" {
			t.Fatalf("ejected j2 picked: %v", got)
		}
	}
	if got := picks(l, 3, t0.Add(31*time.Second)); got[0] != "j2" && got[1] != "j2" && got[2] != "j2" {
		t.Fatalf("j2 not back after the ejection time: %v", got)
	}
	// Every instance ejected: panic mode uses them anyway.
	for _, ep := range abc {
		l.Report(ep, false, t0)
	}
	if got := picks(l, 3, t0.Add(time.Second)); got[0] == "ERR" {
		t.Fatalf("panic mode failed: %v", got)
	}
	// No ejection without the policy.
	l2 := NewList(Policy{})
	l2.Apply(abc, nil)
	l2.Report(a, false, t0)
	if got := picks(l2, 3, t0); got[0] != "j1" {
		t.Fatalf("ejected without policy: %v", got)
	}
}
