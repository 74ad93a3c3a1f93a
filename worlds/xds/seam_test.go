package xds

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
)

// TestRegistryUnreachableThroughTheSeam runs the registry-neutral
// registry-unreachable experiment on the xDS world as the command does
// (`experiments registry-unreachable --registry xds`, a real process: one
// etcd, one control plane, two xDS client processes, rig.Run and the
// neutral judge with this world's rules): the verdict is reproduced or
// differs, no check is outside its band, every caller recorded its calls,
// the control plane lost the registry and followed it again, and no port
// is left listening.
func TestRegistryUnreachableThroughTheSeam(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd, a control plane and two xDS clients for 30 s: skipped under -short")
	}
	exe, err := cmdrun.Command()
	if err != nil {
		t.Fatal(err)
	}
	defer machinelock.Take(t)()
	dir, base := t.TempDir(), testPortBase+250
	t.Setenv("TMPDIR", t.TempDir())
	var out, errw bytes.Buffer
	cmd := exec.Command(exe, "registry-unreachable", "--registry", string(Name), "--quiet", "--port-base", strconv.Itoa(base),
		"--retry-invalid", "0", "--out", dir, "--format", "json")
	cmd.Stdout, cmd.Stderr = &out, &errw
	runErr := cmd.Run()
	var res report.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("run: %v (%v)\n%s", runErr, err, errw.String())
	}
	if res.Verdict != report.Reproduced && res.Verdict != report.Differs {
		t.Errorf("verdict %s, want reproduced or differs\n%s", res.Verdict, errw.String())
	}
	for _, c := range res.Checks {
		if c.Verdict == report.Outside {
			t.Errorf("check %q outside its band: %s (band %s; %s)", c.Name, c.MeasuredText, c.Band, c.Basis)
		}
	}
	for _, name := range []string{"keep", "clear", ClientXDS, ClientXDSIgnoreDeletion} {
		if ok, fail := res.Series[name].Total(); ok+fail < 30*40*9/10 {
			t.Errorf("%s recorded %d calls, want about %d", name, ok+fail, 30*40)
		}
	}
	if !strings.Contains(errw.String(), "lost the registry at") || !strings.Contains(errw.String(), "followed the registry at") {
		t.Errorf("the control plane never lost and regained the registry:\n%s", errw.String())
	}
	t.Logf("verdict %s, wall %.1f s: %s", res.Verdict, res.WallSeconds, strings.Join(res.Conclusion, " "))
	cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(base, base+40) })
	cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(os.Getenv("TMPDIR")) })
	if _, err := os.Stat(filepath.Join(dir, "registry-unreachable.history.jsonl.gz")); err != nil {
		t.Errorf("no saved history: %v", err)
	}
}

// TestInterruptedXDSRunLeavesNothing starts the command on the xDS world
// and interrupts it with SIGINT once the control plane serves, with SIGKILL
// then, and with SIGTERM mid-run (the control plane cut from etcd): no
// child process (etcd member, control plane, xDS client), listening port
// or temp dir is left.
func TestInterruptedXDSRunLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real etcd members, a control plane and xDS clients: skipped under -short")
	}
	exe, err := cmdrun.Command()
	if err != nil {
		t.Fatal(err)
	}
	defer machinelock.Take(t)()
	for i, tc := range []struct {
		sig  syscall.Signal
		code int
		when string // the progress line after which it is sent
	}{{syscall.SIGINT, cmdrun.ExitInterrupted, "control plane xds-cp on"}, {syscall.SIGKILL, -1, "control plane xds-cp on"},
		{syscall.SIGTERM, cmdrun.ExitTerminated, " s  blackhole the control plane's links"}} {
		t.Run(tc.sig.String()+" after "+tc.when, func(t *testing.T) {
			base, tmp := testPortBase+300+50*i, t.TempDir()
			cmd := exec.Command(exe, "registry-unreachable", "--registry", string(Name), "--port-base", strconv.Itoa(base))
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmdrun.WaitForLineWithin(t, stderr, tc.when, time.Minute)
			time.Sleep(500 * time.Millisecond)
			_ = cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code %d (%v), want %d", code, err, tc.code)
			}
			cmdrun.Eventually(t, "child processes", func() string { return cmdrun.Children(cmd.Process.Pid) })
			cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(base, base+40) })
			cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
		})
	}
}
