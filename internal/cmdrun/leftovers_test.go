package cmdrun

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes this package's test binary a helper: TestMain runs Main, which builds (or
// finds) the command, and TestHelperUsesCommand runs it and waits to be killed.
const helperEnv = "SDCHAOS_CMDRUN_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		Main(m)
	}
	os.Exit(m.Run())
}

// TestHelperUsesCommand is the helper: it runs the command Main found, prints its path and
// waits to be SIGKILLed.
func TestHelperUsesCommand(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("a helper process")
	}
	if out, err := exec.Command(Exe, "list").CombinedOutput(); err != nil {
		t.Fatalf("%s list: %v\n%s", Exe, err, out)
	}
	os.Stdout.WriteString("using " + Exe + "\n")
	time.Sleep(10 * time.Minute)
}

// helper is a started helper test binary.
type helper struct {
	cmd   *exec.Cmd
	lines *bufio.Scanner
}

// startHelper starts this test binary as a helper with cache as its build cache and tmp as
// its TMPDIR.
func startHelper(t *testing.T, cache, tmp string) helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUsesCommand$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "SDCHAOS_TEST_CACHE="+cache, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return helper{cmd, bufio.NewScanner(out)}
}

// killed SIGKILLs h and checks that nothing of it is left: no process it started (each go
// command carries its pid), nothing in its temp dir.
func (h helper) killed(t *testing.T, tmp string) {
	t.Helper()
	pid := h.cmd.Process.Pid
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	t0 := time.Now()
	Eventually(t, "processes of the killed test binary", func() string { return Children(pid) })
	Eventually(t, "files in the killed test binary's temp dir", func() string { return Leftovers(tmp) })
	t.Logf("killed test binary %d: processes and temp dir checked within %.1f s", pid, time.Since(t0).Seconds())
}

// tmps lists the .tmp entries of dir.
func tmps(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	return m
}

// TestKilledTestBinaryLeavesNothing SIGKILLs a test binary (this one, as a helper running
// Main) twice: while it builds the command, and while it uses the command. Neither kill
// leaves a process or anything in its temp dir; the first leaves .tmp entries in the build
// cache, which the second's build removes; the command built is reused by the next test
// binary. Starts real processes: skipped under -short.
func TestKilledTestBinaryLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and SIGKILLs test binaries")
	}
	cache, tmp := t.TempDir(), t.TempDir()
	root := filepath.Join(cache, "experiments")
	h := startHelper(t, cache, tmp)
	deadline := time.Now().Add(2 * time.Minute)
	for len(tmps(root)) < 2 { // work.tmp, then <key>.tmp when the link starts
		if time.Now().After(deadline) {
			t.Fatalf("no build under way in %s: %s", root, Leftovers(root))
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	h.killed(t, tmp)
	if len(tmps(root)) < 2 {
		t.Fatalf("the build ended before the kill (%s): this run proves nothing", Leftovers(root))
	}
	exe := usedCommand(t, cache, tmp)
	if left := tmps(root); len(left) > 0 {
		t.Errorf("the next build left the killed build's tmps: %v", left)
	}
	before, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	if again := usedCommand(t, cache, tmp); again != exe {
		t.Errorf("the next test binary used %s, want the cached %s", again, exe)
	} else if after, err := os.Stat(exe); err != nil || !os.SameFile(before, after) {
		t.Errorf("the next test binary built the command again (%v)", err)
	}
}

// usedCommand starts a helper, waits until it uses the command, kills it, checks it left
// nothing and returns the command's path.
func usedCommand(t *testing.T, cache, tmp string) string {
	t.Helper()
	h := startHelper(t, cache, tmp)
	exe := ""
	for h.lines.Scan() {
		if p, ok := strings.CutPrefix(h.lines.Text(), "using "); ok {
			exe = p
			break
		}
	}
	if exe == "" {
		t.Fatal("the helper ended before it used the command")
	}
	h.killed(t, tmp)
	return exe
}
