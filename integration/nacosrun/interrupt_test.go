package nacosrun_test

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"sdchaos/internal/cmdrun"
	"sdchaos/internal/machinelock"
)

// TestInterruptedRealNacosRunLeavesNothing: a run in the real Nacos world
// interrupted mid-fault leaves no JVM, no listening port and no temp dir —
// nacos-incident (the server and four Java callers as JVM children, every
// client link blackholed) with SIGINT, nacos-storm (the server and its
// instances' clients and links) with SIGKILL. SIGTERM takes SIGINT's path
// (one signal.Notify for both); its exit code is checked on etcd runs
// by cmd/experiments' TestInterruptedRunLeavesNothing, which costs no JVM.
// The two runs go at once, each with its own ports and temp dir.
func TestInterruptedRealNacosRunLeavesNothing(t *testing.T) {
	cmdrun.NeedJVM(t, "a real Nacos server and Java callers")
	defer machinelock.Take(t)()
	tests := []interruptCase{
		// the loss from 1 s for 20 s; its injection is the run's first "!" line
		{[]string{"nacos-incident", "--fault-at", "1s", "--loss", "20s", "--after", "10s"}, 2100, "  ! ", 3 * time.Second, syscall.SIGINT, cmdrun.ExitInterrupted},
		// the loss from 5 s after the instances are listed
		{[]string{"nacos-storm", "--instances", "20"}, 7800, "instances registered", 8 * time.Second, syscall.SIGKILL, -1},
	}
	t.Run("at once", func(t *testing.T) { // returns once both runs, at once, are checked: then the lock is released
		for i, tc := range tests {
			t.Run(tc.args[0]+" "+tc.sig.String(), func(t *testing.T) {
				t.Parallel() // nothing is timed: the two runs at once take half the lock's time
				interruptNacosRun(t, 20000+8000*i, tc)
			})
		}
	})
}

// interruptCase is one interrupted run: the command's arguments, the span of its ports, when
// to send the signal, and the exit code it must end with.
type interruptCase struct {
	args  []string
	span  int
	mark  string        // the line after which the fault is due
	after time.Duration // from mark to mid-fault
	sig   syscall.Signal
	code  int
}

// interruptNacosRun starts the command with tc's args on ports from base, sends it tc.sig
// tc.after from the line holding tc.mark, and wants tc.code and nothing left behind.
func interruptNacosRun(t *testing.T, base int, tc interruptCase) {
	tmp := t.TempDir()
	cmd := exec.Command(cmdrun.Exe, append(tc.args, "--port-base", strconv.Itoa(base))...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdrun.WaitForLineWithin(t, stderr, tc.mark, 6*time.Minute) // a loaded machine starts the server and the callers in minutes
	time.Sleep(tc.after)
	_ = cmd.Process.Signal(tc.sig)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != tc.code {
		t.Errorf("exit code %d (%v), want %d", code, err, tc.code)
	}
	cmdrun.Eventually(t, "child processes (JVMs)", func() string { return cmdrun.Children(cmd.Process.Pid) })
	cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(base, base+tc.span) })
	cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
}
