package cpulimit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNewRejectsBadCores(t *testing.T) {
	for _, cores := range []float64{0, -1, 0.005, 65} {
		if _, err := New("bad", cores); err == nil || errors.Is(err, ErrUnavailable) {
			t.Errorf("New(%g): %v, want a range error", cores, err)
		}
	}
}

// TestNewWithoutHierarchy: roots with no cgroup files give ErrUnavailable and leave nothing.
func TestNewWithoutHierarchy(t *testing.T) {
	dir := t.TempDir()
	oldV2, oldV1 := V2Root, V1Root
	V2Root, V1Root = dir, filepath.Join(dir, "cpu")
	defer func() { V2Root, V1Root = oldV2, oldV1 }()
	if _, err := New("none", 0.5); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("New without a hierarchy: %v, want ErrUnavailable", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left %v behind", ents)
	}
}

// TestLimitThrottlesAndLeavesNothing makes a real cgroup of 0.1 CPU, moves a busy process in,
// sees it throttled and its CPU time held near the quota, and removes the cgroup.
func TestLimitThrottlesAndLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a real cgroup")
	}
	l, err := New("test-"+strings.ReplaceAll(t.Name(), "/", "-"), 0.1)
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("no cgroup here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Remove() }()
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
	if err := l.Add(busy.Process.Pid); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	throttled, periods, _, err := l.Throttled()
	if err != nil {
		t.Fatal(err)
	}
	// A spinning process under 10 ms per 100 ms period is throttled in (nearly) every period
	// it runs in; at least half of them, whatever else the machine runs.
	if periods == 0 || throttled*2 < periods {
		t.Errorf("throttled %d of %d periods, want at least half", throttled, periods)
	}
	_ = busy.Process.Kill()
	_ = busy.Wait()
	if err := l.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Dir()); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", l.Dir(), err)
	}
}
