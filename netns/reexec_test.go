package netns_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/netns"
)

type harness struct {
	cmd           *exec.Cmd
	run, child    int
	ino           uint64
	inside        bool
	hostNamespace uint64
	startedAt     time.Time
}

// startHarness starts __netns-test-harness and reads what the run inside
// its namespace prints.
func startHarness(t *testing.T) *harness {
	t.Helper()
	if err := netns.Supported(); err != nil {
		t.Skipf("no private network namespace on this machine: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{cmd: exec.Command(exe, "__netns-test-harness")}
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.cmd.Process.Kill(); _ = h.cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the run's line: %v", err)
	}
	if _, err := fmt.Sscan(line, &h.run, &h.child, &h.ino, &h.inside); err != nil {
		t.Fatalf("parsing %q: %v", line, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/net", &st); err != nil {
		t.Fatal(err)
	}
	if !h.inside || h.ino == st.Ino {
		t.Fatalf("the run is not in a private namespace (inside %t, namespace %d, ours %d)", h.inside, h.ino, st.Ino)
	}
	if !childproc.Alive(h.run) || !childproc.Alive(h.child) {
		t.Fatal("the run or its child is not running")
	}
	return h
}

// waitGone waits until the run, its child and every holder of the
// namespace are gone.
func (h *harness) waitGone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for childproc.Alive(h.run) || childproc.Alive(h.child) || len(holders(h.ino)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s: run alive %t, child alive %t, namespace held by %v",
				childproc.Alive(h.run), childproc.Alive(h.child), holders(h.ino))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReexecForwardsSIGTERMAndReturnsTheExitCode: SIGTERM to the harness
// reaches the run in the namespace, whose exit code (7) the harness
// returns; the namespace is gone afterwards.
func TestReexecForwardsSIGTERMAndReturnsTheExitCode(t *testing.T) {
	h := startHarness(t)
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := h.cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Errorf("harness ended with %v, want exit 7 (the run's code)", err)
	}
	h.waitGone(t)
}

// TestSIGKILLOfTheHarnessLeavesNoNamespace: SIGKILL of the harness ends the
// run inside (parent-death signal), its child, and so the namespace.
func TestSIGKILLOfTheHarnessLeavesNoNamespace(t *testing.T) {
	h := startHarness(t)
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	h.waitGone(t)
}

// TestUnsupportedSaysHowToEnable: where the kernel refuses user namespaces,
// Supported returns ErrUnsupported with one line naming the sysctl.
func TestUnsupportedSaysHowToEnable(t *testing.T) {
	if err := netns.Supported(); err != nil {
		t.Skipf("no private network namespace on this machine: %v", err)
	}
	var out strings.Builder
	code, err := netns.Cmd{Args: []string{"__netns-test-no-userns"}, Env: os.Environ(),
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}.Run()
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out.String())
	}
	got := out.String()
	for _, want := range []string{"true private network namespaces unsupported", "user.max_user_namespaces = 0",
		"sysctl -w user.max_user_namespaces=", "or run without --net private"} {
		if !strings.Contains(got, want) {
			t.Errorf("Supported where user namespaces are forbidden said %q; want it to contain %q", got, want)
		}
	}
	if strings.Count(strings.TrimSpace(got), "\n") != 0 {
		t.Errorf("not one line: %q", got)
	}
}
