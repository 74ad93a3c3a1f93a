package eurekarun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/internal/cmdrun"
	"sdchaos/internal/machinelock"

	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// eurekaRegistryBase keeps this test's listeners apart from every other
// test's (the real Eureka rooms use 18000–18100, Nacos 9700–17100).
const eurekaRegistryBase = 19300

// TestRegistryUnreachableOnRealEureka runs the built-in
// registry-unreachable, shortened (the registry unreachable from 2 s for
// 8 s of a 14 s run), on real Netflix Eureka through the command:
// `experiments run FILE --registry eureka`. Every check Eureka's rules
// call for is reproduced, the example client (a caller of kind exec on the
// same servers) served calls, and the run leaves no JVM, no listening port
// and no temp dir. A run the machine starved (invalid) is run once more, then
// the test skips, saying why.
func TestRegistryUnreachableOnRealEureka(t *testing.T) {
	cmdrun.NeedJVM(t, "real Eureka servers")
	builtin, err := os.ReadFile("../../scenarios/anyregistry/builtin/registry-unreachable.yaml")
	if err != nil {
		t.Fatal(err)
	}
	short := strings.NewReplacer("duration: 30s", "duration: 14s", "at: 3s", "at: 2s", "for: 18s", "for: 8s").Replace(string(builtin))
	file := filepath.Join(t.TempDir(), "short.yaml")
	if err := os.WriteFile(file, []byte(withExampleClient(short, buildExampleClient(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	defer machinelock.Take(t)()
	var why string
	for range 2 {
		res := runEurekaRegistry(t, file)
		t.Logf("verdict %s, wall %.1f s", res.Verdict, res.WallSeconds)
		checkExampleClient(t, res)
		if res.Verdict != report.Invalid {
			for _, c := range res.Checks {
				t.Logf("%-75s %-12s %-16s %s", c.Name, c.MeasuredText, c.Band, c.Verdict)
				if c.Verdict != report.Reproduced {
					t.Errorf("%s: %s (band %s): %s, want reproduced", c.Name, c.MeasuredText, c.Band, c.Verdict)
				}
			}
			if len(res.Checks) < 7 {
				t.Errorf("%d checks, want the 7 of keep, clear and the Java client", len(res.Checks))
			}
			return
		}
		why = scentest.InvalidWhy(res)
		t.Logf("invalid run: %s", why)
	}
	t.Skipf("2 invalid runs on this machine: %s", why)
}

// runEurekaRegistry runs the file on real Eureka as the command, in a
// process of its own with its own TMPDIR, checks that nothing is left, and
// returns its result.
func runEurekaRegistry(t *testing.T, file string) *report.Result {
	t.Helper()
	tmp := t.TempDir()
	cmd := exec.Command(cmdrun.Exe, "run", file, "--registry", "eureka", "--quiet", "--format", "json", "--retry-invalid", "0",
		"--port-base", strconv.Itoa(eurekaRegistryBase))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != cmdrun.ExitReproduced && code != cmdrun.ExitNotReproduced && code != cmdrun.ExitInvalid {
		t.Fatalf("exit %d (%v):\n%s", code, err, errw.String())
	}
	cmdrun.Eventually(t, "child processes (JVMs)", func() string { return cmdrun.Children(cmd.Process.Pid) })
	cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(eurekaRegistryBase, eurekaRegistryBase+40) })
	cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
	var res report.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("decoding the result: %v\n%.600s", err, out.String())
	}
	return &res
}

// TestInterruptedRealEurekaRunLeavesNothing: a run against real Eureka
// servers (JVM children) interrupted with SIGINT or SIGKILL leaves no JVM,
// no listening port and no temp dir. SIGTERM takes SIGINT's path (one
// signal.Notify for both); its exit code is checked on etcd runs by
// cmd/experiments' TestInterruptedRunLeavesNothing, which costs no JVM.
func TestInterruptedRealEurekaRunLeavesNothing(t *testing.T) {
	cmdrun.NeedJVM(t, "real Eureka servers")
	defer machinelock.Take(t)()
	for i, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, cmdrun.ExitInterrupted}, {syscall.SIGKILL, -1}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			base := 10800 + 40*i
			tmp := t.TempDir()
			cmd := exec.Command(cmdrun.Exe, "eureka-failover", "--eureka", "real", "--workers", "5", "--port-base", strconv.Itoa(base))
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmdrun.WaitForLineWithin(t, stderr, "workers up", 4*time.Minute) // the first run builds the JVM pieces
			_ = cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code %d (%v), want %d", code, err, tc.code)
			}
			cmdrun.Eventually(t, "child processes (JVMs)", func() string { return cmdrun.Children(cmd.Process.Pid) })
			cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(base, base+40) })
			cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
		})
	}
}
