package procstat

import (
	"os"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tail := " 1 1 1 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 10"
	tests := []struct {
		name    string
		line    string
		state   byte
		cpu     time.Duration
		wantErr bool
	}{
		{"plain", "42 (etcd) S" + tail, 'S', 3 * time.Second, false},
		{"a name holding ') '", "42 (a) T (b) T" + tail, 'T', 3 * time.Second, false},
		{"a name with spaces", "42 (my proc) Z" + tail, 'Z', 3 * time.Second, false},
		{"no name", "42 etcd S" + tail, 0, 0, true},
		{"short", "42 (etcd) S 1 1", 0, 0, true},
		{"bad utime", "42 (etcd) S 1 1 1 0 -1 4194560 100 0 0 0 x 50", 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(tc.line))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && (s.State != tc.state || s.CPU != tc.cpu) {
				t.Errorf("got state %q cpu %s, want %q %s", s.State, s.CPU, tc.state, tc.cpu)
			}
		})
	}
}

func TestReadSelf(t *testing.T) {
	s, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.Zombie() || s.Stopped() {
		t.Errorf("this process reads as state %q", s.State)
	}
	if _, err := Read(1 << 30); err == nil {
		t.Error("a pid that cannot exist read without an error")
	}
}

func TestRSSOfSelf(t *testing.T) {
	n, err := RSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n < 1<<20 || n > 1<<40 {
		t.Errorf("RSS of the test process = %d bytes, want between 1 MiB and 1 TiB", n)
	}
}
