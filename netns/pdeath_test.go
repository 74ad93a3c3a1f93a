package netns_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/netns"
)

func init() {
	// __netns-test-forker plays the harness: it starts __netns-test-elsewhere
	// with the parent-death signal from a locked thread (as Cmd.Run does),
	// prints its pid and waits to be killed.
	childproc.Register("__netns-test-forker", func(args []string) int {
		runtime.LockOSThread()
		exe, _ := os.Executable()
		cmd := exec.Command(exe, append([]string{"__netns-test-elsewhere"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return 97
		}
		fmt.Println(cmd.Process.Pid)
		time.Sleep(time.Hour)
		return 0
	})
	// __netns-test-elsewhere plays __netns-enter at its worst: the main
	// goroutine keeps the main thread, so the execve of __netns-test-sleep
	// happens on another thread, after armParentDeath when args[0] is "arm".
	childproc.Register("__netns-test-elsewhere", func(args []string) int {
		runtime.LockOSThread()
		failed := make(chan int)
		go func() {
			if args[0] == "arm" {
				if err := netns.ArmParentDeath(os.Getppid()); err != nil {
					fmt.Fprintln(os.Stderr, err)
					failed <- 96
					return
				}
			} else {
				runtime.LockOSThread()
			}
			exe, _ := os.Executable()
			_ = syscall.Exec(exe, []string{os.Args[0], "__netns-test-sleep"}, os.Environ())
			failed <- 95
		}()
		return <-failed
	})
}

// TestExecOnAnotherThreadKeepsTheParentDeathSignal: the kernel keeps the
// parent-death signal per thread and an execve keeps the executing thread's
// only. A process started with it whose execve happens on another thread
// than the main one outlives its SIGKILLed parent unless armParentDeath set
// the signal on that thread first (what __netns-enter does before it
// executes the run), so the harness's SIGKILL reaches the run in the
// namespace whichever thread Go ran enterMain on.
func TestExecOnAnotherThreadKeepsTheParentDeathSignal(t *testing.T) {
	for _, tc := range []struct {
		mode      string
		survives  bool
		rationale string
	}{
		{"plain", true, "the kernel's rule this guards against"},
		{"arm", false, "armParentDeath"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			forker := exec.Command(exe, "__netns-test-forker", tc.mode)
			out, err := forker.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := forker.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = forker.Process.Kill(); _ = forker.Wait() })
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("reading the child's pid: %v", err)
			}
			child, err := strconv.Atoi(line[:len(line)-1])
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
			waitExec(t, child)
			_ = forker.Process.Kill()
			_ = forker.Wait()
			alive := childproc.Alive(child)
			for deadline := time.Now().Add(5 * time.Second); alive && !tc.survives && time.Now().Before(deadline); alive = childproc.Alive(child) {
				time.Sleep(20 * time.Millisecond)
			}
			if !tc.survives && alive {
				t.Errorf("%s: the child outlived its parent's SIGKILL by 5 s", tc.rationale)
			}
			if tc.survives {
				time.Sleep(200 * time.Millisecond)
				if !childproc.Alive(child) {
					t.Errorf("%s: the child died with its parent; this test no longer shows the rule", tc.rationale)
				}
			}
		})
	}
}

// waitExec waits until pid runs __netns-test-sleep (its execve is done).
func waitExec(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if slices.Contains(strings.Split(string(b), "\x00"), "__netns-test-sleep") {
			return
		}
	}
	t.Fatalf("pid %d never executed __netns-test-sleep", pid)
}
