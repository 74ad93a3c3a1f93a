package worldtest

import (
	"os"
	"os/exec"
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
// instances' clients and links) with SIGTERM and SIGKILL.
func TestInterruptedRealNacosRunLeavesNothing(t *testing.T) {
	needJVM(t, "a real Nacos server and Java callers")
	defer scentest.LockMachine(t)()
	tests := []struct {
		args  []string
		span  int
		after time.Duration // from "instances registered" to mid-fault
		sig   syscall.Signal
		code  int
	}{
		// time zero is 30 s after the callers launch; the loss from 1 s
		{[]string{"nacos-incident", "--fault-at", "1s", "--loss", "20s", "--after", "10s"}, 2100, 35 * time.Second, syscall.SIGINT, exitInterrupted},
		// the loss from 5 s after the instances are listed
		{[]string{"nacos-storm", "--instances", "20"}, 7800, 8 * time.Second, syscall.SIGTERM, exitTerminated},
		{[]string{"nacos-storm", "--instances", "20"}, 7800, 8 * time.Second, syscall.SIGKILL, -1},
	}
	base := 20000
	for _, tc := range tests {
		t.Run(tc.args[0]+" "+tc.sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(exe, append(tc.args, "--port-base", strconv.Itoa(base))...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForLineWithin(t, stderr, "instances registered", 6*time.Minute) // a loaded machine starts the server in minutes
			time.Sleep(tc.after)
			_ = cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code %d (%v), want %d", code, err, tc.code)
			}
			eventually(t, "child processes (JVMs)", func() string { return children(cmd.Process.Pid) })
			eventually(t, "listening ports", func() string { return busyPorts(base, base+tc.span) })
			eventually(t, "temp dirs", func() string { return leftovers(tmp) })
		})
		base += 8000
	}
}

// TestInterruptedRealEurekaRunLeavesNothing: a run against real Eureka
// servers (JVM children) interrupted with SIGINT, SIGTERM or SIGKILL leaves
// no JVM, no listening port and no temp dir.
func TestInterruptedRealEurekaRunLeavesNothing(t *testing.T) {
	needJVM(t, "real Eureka servers")
	defer scentest.LockMachine(t)()
	for i, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitInterrupted}, {syscall.SIGTERM, exitTerminated}, {syscall.SIGKILL, -1}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			base := 10800 + 40*i
			tmp := t.TempDir()
			cmd := exec.Command(exe, "eureka-failover", "--eureka", "real", "--workers", "5", "--port-base", strconv.Itoa(base))
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForLineWithin(t, stderr, "workers up", 4*time.Minute) // the first run builds the JVM pieces
			_ = cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code %d (%v), want %d", code, err, tc.code)
			}
			eventually(t, "child processes (JVMs)", func() string { return children(cmd.Process.Pid) })
			eventually(t, "listening ports", func() string { return busyPorts(base, base+40) })
			eventually(t, "temp dirs", func() string { return leftovers(tmp) })
		})
	}
}
