package zookeeperrun_test

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

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// zkSeam is the experiment of the default suite's real ZooKeeper test: one
// ensemble for every fault — the leader cut off from its peers for 18 s,
// probed as it still serves and once it stopped (each probe ends, 2 s
// later, before the heal), then, once the callers' recovery bound after
// that heal has passed, every client link blackholed for 6 s —
// with the policy callers and both Java clients. (The judge counts what
// follows a heal up to the next fault: the gap lets the callers' recovery
// after the cut be judged, and the blackhole start from callers that hold
// their lists.)
const zkSeam = `name: zk-seam
summary: the ZooKeeper world through the seam, one ensemble for every fault
duration: 44s
instances:
  count: 3
callers:
  - name: keep
    kind: policy
    policy: keep
  - name: clear
    kind: policy
    policy: clear
  - name: real
    kind: client
    client: all
timeline:
  - at: 2s
    for: 18s
    fault: cut-off-member
    which: leader
  - at: 4s
    probe: members
  - at: 15500ms
    probe: members
  - at: 28s
    for: 6s
    fault: registry-unreachable
`

// TestZooKeeperWorldThroughTheSeam is the default suite's real ZooKeeper
// test: one ensemble, every fault of the experiment above through rig.Run,
// judged by ZooKeeper's rules; no check may go outside its band (a run the
// loaded machine starved is invalid through the schedule gate alone), both
// Java clients recorded their calls and connection states, every member
// was probed, the example client (a caller of kind exec on the same
// ensemble) served calls, the saved history judges the same again, and
// nothing is left.
func TestZooKeeperWorldThroughTheSeam(t *testing.T) {
	cmdrun.NeedJVM(t, "a real ZooKeeper ensemble and Java clients")
	defer machinelock.Take(t)()
	dir := t.TempDir()
	file := filepath.Join(dir, "zk-seam.yaml")
	if err := os.WriteFile(file, []byte(withExampleClient(zkSeam, buildExampleClient(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	var out, errw bytes.Buffer
	cmd := exec.Command(cmdrun.Exe, "run", file, "--registry", "zookeeper", "--quiet", "--port-base", "14100", "--retry-invalid", "0",
		"--out", dir, "--format", "json")
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	var res report.Result
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
		t.Fatalf("run: %v (%v)\n%s", err, jerr, errw.String())
	}
	outside := false
	for _, c := range res.Checks {
		if c.Verdict == report.Outside {
			outside = true
			t.Errorf("check %q outside its band: %s (band %s; %s)", c.Name, c.MeasuredText, c.Band, c.Basis)
		}
	}
	if outside {
		logRefreshErrors(t, filepath.Join(dir, "zk-seam.history.jsonl.gz"))
	}
	for _, g := range res.Gates {
		if !g.OK && !strings.Contains(g.Name, "kept their schedule") {
			t.Errorf("gate %q failed: %s", g.Name, g.Measured)
		}
	}
	t.Logf("verdict %s, wall %.1f s: %s", res.Verdict, res.WallSeconds, strings.Join(res.Conclusion, " "))
	checkExampleClient(t, &res)
	cmdrun.Eventually(t, "child processes (JVMs, the example client)", func() string { return cmdrun.Children(cmd.Process.Pid) })
	for _, name := range []string{"curator-servicecache", "spring-cloud-zookeeper", "keep", "clear"} {
		if ok, fail := res.Series[name].Total(); ok+fail < 44*40*9/10 {
			t.Errorf("%s recorded %d calls, want about %d", name, ok+fail, 44*40)
		}
	}
	for _, want := range []string{"zk1 (", "zk2 (", "zk3 ("} {
		if !strings.Contains(scentest.Names(&res), want) {
			t.Errorf("no probe check of %s… among %s", want, scentest.Names(&res))
		}
	}
	if b, err := exec.Command(cmdrun.Exe, "recheck", dir).CombinedOutput(); err != nil {
		t.Errorf("recheck: %v\n%s", err, b)
	}
	cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(os.Getenv("TMPDIR")) })
}

// TestInterruptedZooKeeperRunLeavesNothing starts the command on the
// ZooKeeper world as a real process and interrupts it with SIGINT, SIGTERM
// or SIGKILL once the members' JVMs run, and with SIGINT mid-run (the Java
// clients calling, every client link blackholed): no JVM, port or temp dir
// is left.
func TestInterruptedZooKeeperRunLeavesNothing(t *testing.T) {
	cmdrun.NeedJVM(t, "a real ZooKeeper ensemble and Java clients")
	defer machinelock.Take(t)()
	for i, tc := range []struct {
		sig  syscall.Signal
		code int
		when string // the progress line after which it is sent
	}{{syscall.SIGINT, cmdrun.ExitInterrupted, "members launched"}, {syscall.SIGTERM, cmdrun.ExitTerminated, "members launched"}, {syscall.SIGKILL, -1, "members launched"},
		{syscall.SIGINT, cmdrun.ExitInterrupted, "blackhole every client link"}} {
		t.Run(tc.sig.String()+" after "+tc.when, func(t *testing.T) {
			base := 14200 + 100*i
			tmp := t.TempDir()
			cmd := exec.Command(cmdrun.Exe, "registry-unreachable", "--registry", "zookeeper", "--port-base", strconv.Itoa(base))
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmdrun.WaitForLineWithin(t, stderr, tc.when, 5*time.Minute) // the first run builds the JVM pieces
			time.Sleep(500 * time.Millisecond)
			_ = cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code %d (%v), want %d", code, err, tc.code)
			}
			cmdrun.Eventually(t, "child processes (JVMs)", func() string { return cmdrun.Children(cmd.Process.Pid) })
			cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(base, base+60) })
			cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
		})
	}
}

// logRefreshErrors logs, from a saved history, each policy caller's failed refreshes by error,
// and the registry's own failed listings (read on the members directly, past the client links):
// how many, the first and the last, so that a check outside its band says what the caller's
// client answered, and whether the ensemble itself served then (a quorum link's reset once left
// no member serving for initLimit ticks: zookeeper.dialLearner).
func logRefreshErrors(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Log(err)
		return
	}
	defer f.Close()
	_, h, err := history.ReadHistory(f)
	if err != nil {
		t.Log(err)
		return
	}
	type span struct {
		n           int
		first, last time.Duration
	}
	seen := map[string]*span{}
	var keys []string
	for _, op := range h.Ops {
		if (op.Kind != history.OpRefresh && op.Kind != history.OpListed) || op.Outcome == history.OK {
			continue
		}
		k := op.Caller + ": " + op.Err
		if seen[k] == nil {
			seen[k] = &span{first: op.Start}
			keys = append(keys, k)
		}
		seen[k].n++
		seen[k].last = op.Start
	}
	for _, k := range keys {
		t.Logf("failed %s — %d times, %.1f–%.1f s", k, seen[k].n, seen[k].first.Seconds(), seen[k].last.Seconds())
	}
}
