package cpulimit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
)

func init() {
	childproc.Register("__cpulimit-test-sleep", func([]string) int { time.Sleep(time.Hour); return 0 })
	// __cpulimit-test-harness plays a harness that limits a child: a supervisor, a sleeping
	// child, a cgroup of 0.1 CPU adopted by the supervisor with the child in it; it prints
	// "<child pid> <cgroup dir>" ("skip <why>" without cgroups) and waits to be killed.
	childproc.Register("__cpulimit-test-harness", func([]string) int {
		s, err := childproc.NewSupervisor(nil)
		if err != nil {
			return 1
		}
		dir, _ := s.TempDir("cpulimit-test-*", false)
		c, err := s.Start(childproc.Spec{Name: "sleeper", Command: "__cpulimit-test-sleep", LogPath: filepath.Join(dir, "sleeper.log")})
		if err != nil {
			return 1
		}
		l, err := New("test-harness-"+strconv.Itoa(os.Getpid()), 0.1)
		if err != nil {
			fmt.Printf("skip %v\n", err)
			time.Sleep(time.Hour)
			return 0
		}
		s.AdoptDir(l.Dir())
		if err := l.Add(c.Pid()); err != nil {
			return 1
		}
		fmt.Printf("%d %s\n", c.Pid(), l.Dir())
		time.Sleep(time.Hour)
		return 0
	})
}

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// TestHarnessSIGKILLRemovesTheCgroup: a harness SIGKILLed while its child runs under a CPU
// quota leaves neither the child nor the cgroup (the reaper kills one and removes the other).
func TestHarnessSIGKILLRemovesTheCgroup(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a real cgroup")
	}
	if l, err := New("probe-"+strconv.Itoa(os.Getpid()), 0.1); errors.Is(err, ErrUnavailable) {
		t.Skipf("no cgroup here: %v", err)
	} else if err == nil {
		_ = l.Remove()
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "__cpulimit-test-harness")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	var dir string
	if _, err := fmt.Sscan(line, &pid, &dir); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the harness said %q", line)
	}
	procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if string(procs) != strconv.Itoa(pid)+"\n" {
		t.Errorf("cgroup.procs %q, want the child %d", procs, pid)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, err := os.Stat(dir)
		if os.IsNotExist(err) && !childproc.Alive(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("after the harness's SIGKILL: child %d alive %v, cgroup %s still there", pid, childproc.Alive(pid), dir)
}
