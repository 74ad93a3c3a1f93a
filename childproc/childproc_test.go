package childproc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func init() {
	Register("__test-sleep", func([]string) int { time.Sleep(time.Hour); return 0 })
	Register("__test-echo", func([]string) int {
		Serve(func(cmd string) (string, error) {
			if cmd == "fail" {
				return "", fmt.Errorf("asked to fail")
			}
			return strings.ToUpper(cmd), nil
		})
		return 0
	})
	// __test-harness plays a harness: it starts two sleepers (one frozen),
	// makes a temp dir, prints "<pid> <pid> <dir>" and waits to be killed.
	// With "slow" it also tells the reaper of a process that ends 1.5 s
	// later, as a member slow to die: the reaper must wait for it.
	Register("__test-harness", func(args []string) int {
		s, err := NewSupervisor(nil)
		if err != nil {
			return 1
		}
		dir, _ := s.TempDir("childproc-test-*", false)
		a, _ := s.Start(Spec{Name: "a", Command: "__test-sleep", LogPath: filepath.Join(dir, "a.log")})
		b, _ := s.Start(Spec{Name: "b", Command: "__test-sleep", LogPath: filepath.Join(dir, "b.log")})
		_ = b.Stop()
		if len(args) > 0 && args[0] == "slow" {
			slow := exec.Command("sleep", "1.5")
			if err := slow.Start(); err != nil {
				return 1
			}
			s.tell("pid " + strconv.Itoa(slow.Process.Pid))
		}
		fmt.Printf("%d %d %s\n", a.Pid(), b.Pid(), dir)
		time.Sleep(time.Hour)
		return 0
	})
}

func TestMain(m *testing.M) {
	Dispatch()
	os.Exit(m.Run())
}

func waitGone(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s still there after 5s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCloseKillsStoppedChildrenAndRemovesDirs(t *testing.T) {
	s, err := NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := s.TempDir("childproc-test-*", false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Start(Spec{Name: "sleeper", Command: "__test-sleep", LogPath: filepath.Join(dir, "log")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if Alive(c.Pid()) {
		t.Error("child alive after Close")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp dir left behind: %v", err)
	}
	if _, err := s.Start(Spec{Name: "late", Command: "__test-sleep", LogPath: os.DevNull}); err == nil {
		t.Error("Start after Close succeeded")
	}
}

func TestControlChannel(t *testing.T) {
	s, err := NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.Start(Spec{Name: "echo", Command: "__test-echo", LogPath: os.DevNull, Control: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ cmd, want, wantErr string }{
		{"hello", "HELLO", ""},
		{"fail", "", "asked to fail"},
		{"again", "AGAIN", ""},
	}
	for _, tc := range tests {
		got, err := c.Control(tc.cmd, 5*time.Second)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.cmd, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v", tc.cmd, got, err)
		}
	}
	_ = c.Stop()
	if _, err := c.Control("frozen", 300*time.Millisecond); err == nil {
		t.Error("a frozen child answered")
	}
	c.Kill()
}

// TestHarnessSIGKILLLeavesNothing kills a harness process with SIGKILL and
// checks that its children (one of them frozen) and temp dir disappear.
func TestHarnessSIGKILLLeavesNothing(t *testing.T) {
	killHarness(t)
}

// TestReaperOutlivesItsHarness: the reaper's work starts when the harness
// dies, so it must not end with it (a child's watchdog would end it within
// 200 ms, before a slow child is gone and its dir removed).
func TestReaperOutlivesItsHarness(t *testing.T) {
	killHarness(t, "slow")
}

// killHarness starts __test-harness with args, SIGKILLs it and waits for
// its children and temp dir to be gone.
func killHarness(t *testing.T, args ...string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{"__test-harness"}, args...)...)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var a, b int
	var dir string
	if _, err := fmt.Sscan(line, &a, &b, &dir); err != nil {
		t.Fatalf("parsing %q: %v", line, err)
	}
	if !Alive(a) || !Alive(b) {
		t.Fatal("children not running")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	waitGone(t, "child a", func() bool { return !Alive(a) })
	waitGone(t, "child b (frozen)", func() bool { return !Alive(b) })
	waitGone(t, "temp dir", func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) })
}
