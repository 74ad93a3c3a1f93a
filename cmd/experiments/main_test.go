package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/internal/cmdrun"
	"sdchaos/internal/machinelock"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// envRunMain makes the test binary behave as the experiments command, so
// tests can run it as a real process and signal it.
const envRunMain = "SDCHAOS_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	childproc.Dispatch()
	if os.Getenv(envRunMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		stdout   string // substring expected on stdout
		stderrRE string // substring expected on the one stderr line
	}{
		{nil, 2, "", "no command given"},
		{[]string{"list"}, 0, "cache-on-failure", ""},
		{[]string{"help"}, 0, "usage:", ""},
		{[]string{"help", "minority"}, 0, "--outage", ""},
		{[]string{"help", "nope"}, 2, "", `unknown scenario "nope"`},
		{[]string{"help", "plot"}, 0, "experiments plot DIR", ""},
		{[]string{"help", "sweep"}, 0, "--param NAME VALUES", ""},
		{[]string{"help"}, 0, "experiments sweep <scenario>", ""},
		{[]string{"nope"}, 2, "", `unknown scenario "nope"`},
		{[]string{"cache-on-failure", "-h"}, 0, "--refresh-timeout", ""},
		{[]string{"cache-on-failure", "--rate", "-1"}, 2, "", "--rate (-1)"},
		{[]string{"cache-on-failure", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"cache-on-failure", "--rate", "fast"}, 2, "", `invalid value "fast"`},
		{[]string{"cache-on-failure", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"cache-on-failure", "--ttl", "2s", "--renew", "5s"}, 2, "", "renew interval (5s) must be shorter than the ttl (2s)"},
		{[]string{"cache-on-failure", "--format", "xml"}, 2, "", `--format "xml"`},
		{[]string{"cache-on-failure", "--duration", "-1s"}, 2, "", "--duration (-1s)"},
		{[]string{"cache-on-failure", "--port-base", "80"}, 2, "", "--port-base (80)"},
		{[]string{"cache-on-failure", "--out", "/proc/no/such/dir"}, 2, "", "--out /proc/no/such/dir"},
		{[]string{"help", "cache-on-failure"}, 0, "cache-on-failure--fail-fast", ""},
		{[]string{"all", "--only", "nope"}, 2, "", `unknown scenario "nope"`},
		{[]string{"all", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"all", "--out", "/proc/no/such/dir"}, 2, "", "--out /proc/no/such/dir"},
		{[]string{"all", "--runs", "0"}, 2, "", "--runs (0)"},
		{[]string{"cache-on-failure", "--runs", "0"}, 2, "", "--runs (0)"},
		{[]string{"compare", "a"}, 2, "", "want two arguments"},
		{[]string{"compare", "/no/such", "/no/such"}, 2, "", "no such file"},
		{[]string{"recheck"}, 2, "", "want one argument"},
		{[]string{"recheck", "/tmp"}, 2, "", "holds no saved history"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := exitCode(run(context.Background(), tc.args, &out, &errb), &errb)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out.String())
			}
			if tc.code == 2 {
				lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
				last := lines[len(lines)-1]
				if !strings.HasPrefix(last, "experiments: ") || !strings.Contains(last, tc.stderrRE) {
					t.Errorf("error line %q lacks %q", last, tc.stderrRE)
				}
			}
		})
	}
}

func TestPortInUseExits2NamingThePort(t *testing.T) {
	if testing.Short() {
		t.Skip("binds real ports")
	}
	const base = 9700
	l, err := net.Listen("tcp", ports.Addr(base+1))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out, errb bytes.Buffer
	code := exitCode(run(context.Background(), []string{"cache-on-failure", "--port-base", strconv.Itoa(base)}, &out, &errb), &errb)
	if code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	if msg := errb.String(); !strings.Contains(msg, "port 9701") || !strings.Contains(msg, "--port-base") {
		t.Errorf("message %q does not name the port and the flag", msg)
	}
	if err := ports.CheckFree(base); err != nil {
		t.Errorf("port %d left in use: %v", base, err)
	}
}

// TestInterruptedRunLeavesNothing starts the command as a real process,
// interrupts it mid-run with SIGINT, SIGTERM or SIGKILL, and checks that no
// child process, listening port or temp dir is left.
func TestInterruptedRunLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real etcd processes")
	}
	defer machinelock.Take(t)() // one real-etcd test at a time, machine-wide (a starved run measures the machine)
	tests := []struct {
		scenario string
		sig      syscall.Signal
		code     int
	}{
		{"passive-ejection", syscall.SIGINT, exitInterrupted}, // members SIGKILLed, an instance crashed
		{"passive-ejection", syscall.SIGTERM, exitTerminated},
		{"passive-ejection", syscall.SIGKILL, -1},
		{"registry-jitter", syscall.SIGINT, exitInterrupted}, // client links blackholed
		{"minority-partition", syscall.SIGKILL, -1},          // a member cut off from its peers
	}
	for i, tc := range tests {
		t.Run(tc.scenario+" "+tc.sig.String(), func(t *testing.T) {
			base := 9900 + 20*i
			tmp := t.TempDir()
			exe, _ := os.Executable()
			cmd := exec.Command(exe, tc.scenario, "--port-base", strconv.Itoa(base), "--duration", "30s")
			cmd.Env = append(os.Environ(), envRunMain+"=1", "TMPDIR="+tmp)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmdrun.WaitForLineWithin(t, stderr, "instances registered", time.Minute)
			time.Sleep(3 * time.Second) // mid-run: faults active (each scenario injects at 1–2 s)
			_ = cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if code != tc.code {
				t.Errorf("exit code %d (%v), want %d", code, err, tc.code)
			}
			cmdrun.Eventually(t, "child processes", func() string { return cmdrun.Children(cmd.Process.Pid) })
			cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(base, base+20) })
			cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
		})
	}
}
