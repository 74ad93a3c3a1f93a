package nacos_test

import (
	"os"
	"os/exec"
	"sdchaos/internal/cmdrun"
	"strconv"
	"syscall"
	"testing"
	"time"

	"sdchaos/scenarios/scentest"
)

// TestInterruptedRealNacosRunLeavesNothing: a run in the real Nacos world
// interrupted mid-fault leaves no JVM, no listening port and no temp dir —
// nacos-incident (the server and four Java callers as JVM children, every
// client link blackholed) with SIGINT, nacos-storm (the server and its
// instances' clients and links) with SIGKILL. SIGTERM takes SIGINT's path
// (one signal.Notify for both); its exit code is checked on etcd runs
// by cmd/experiments' TestInterruptedRunLeavesNothing, which costs no JVM.
func TestInterruptedRealNacosRunLeavesNothing(t *testing.T) {
	cmdrun.NeedJVM(t, "a real Nacos server and Java callers")
	defer scentest.LockMachine(t)()
	tests := []struct {
		args  []string
		span  int
		mark  string        // the line after which the fault is due
		after time.Duration // from mark to mid-fault
		sig   syscall.Signal
		code  int
	}{
		// the loss from 1 s for 20 s; its injection is the run's first "!" line
		{[]string{"nacos-incident", "--fault-at", "1s", "--loss", "20s", "--after", "10s"}, 2100, "  ! ", 3 * time.Second, syscall.SIGINT, cmdrun.ExitInterrupted},
		// the loss from 5 s after the instances are listed
		{[]string{"nacos-storm", "--instances", "20"}, 7800, "instances registered", 8 * time.Second, syscall.SIGKILL, -1},
	}
	base := 20000
	for _, tc := range tests {
		t.Run(tc.args[0]+" "+tc.sig.String(), func(t *testing.T) {
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
		})
		base += 8000
	}
}
