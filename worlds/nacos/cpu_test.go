package nacos

import (
	"os"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want time.Duration
		ok   bool
	}{
		{"1234 (java) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 40 0 1 2 3", 3 * time.Second, true},
		{"77 (a b) c) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 1 2 3", 100 * time.Millisecond, true},
		{"77 java S 1", 0, false},
		{"77 (java) S 1 2 3", 0, false},
	} {
		got, err := parseStatCPU(tc.stat)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseStatCPU(%q) = %s, %v; want %s, ok %v", tc.stat, got, err, tc.want, tc.ok)
		}
	}
}

func TestCPUTimeOfSelf(t *testing.T) {
	if _, err := CPUTime(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}
