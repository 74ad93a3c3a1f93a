package machinelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestForIsANoOpUnlessAsked: without EnvDir a run takes no lock; with it,
// the run waits its turn, logs the wait and, at the release, the hold.
func TestForIsANoOpUnlessAsked(t *testing.T) {
	var lines []string
	logf := func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }
	t.Setenv(EnvDir, "")
	release, err := For(context.Background(), logf)
	if err != nil || len(lines) != 0 {
		t.Fatalf("without %s: err %v, lines %q; want a silent no-op", EnvDir, err, lines)
	}
	release()
	t.Setenv(EnvDir, t.TempDir())
	release, err = For(context.Background(), logf)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "machine lock: waited") || !strings.HasPrefix(lines[1], "machine lock: held") {
		t.Errorf("lines %q, want the wait then the hold", lines)
	}
}

// TestAWaiterLeavesWhenItsContextEnds: a run interrupted while it waits
// leaves the queue, so the next waiter is not kept behind it.
func TestAWaiterLeavesWhenItsContextEnds(t *testing.T) {
	dir := t.TempDir()
	release, err := Acquire(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Acquire(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting behind a held lock: %v, want the context's deadline", err)
	}
	q := machineQueue{dir: dir}
	waitQueued(t, q, 1)
	release()
}

// TestSetTreeRaisesEveryProcessStarted: a process started niced by this
// one is back at the default priority, every thread of it, after SetTree.
func TestSetTreeRaisesEveryProcessStarted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("raising a priority needs root")
	}
	child := exec.Command("nice", "-n", strconv.Itoa(Nice), "sleep", "30")
	if err := child.Start(); err != nil {
		t.Skip("no nice(1) or sleep(1):", err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	pid := child.Process.Pid
	waitNice(t, pid, Nice)
	if err := SetTree(os.Getpid(), 0); err != nil {
		t.Fatal(err)
	}
	waitNice(t, pid, 0)
}

// waitNice waits (2 s at most) until pid's niceness is want.
func waitNice(t *testing.T, pid, want int) {
	t.Helper()
	var got int
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
		if got, _ = strconv.Atoi(f[16]); got == want { // field 19, nice
			return
		}
	}
	t.Fatalf("pid %d at nice %d, want %d", pid, got, want)
}
