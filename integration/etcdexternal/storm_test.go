package etcdexternal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sdchaos/internal/cmdrun"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// TestShardedStormMatchesOneProcess is the proof on loopback: the storm at
// 1000 registrants run by one process (oneProcessStorm, shared with
// TestExternalStorm), and by two processes with shards
// 0/2 and 1/2 merged, give the same verdicts on the judge's checks and the
// same fleet figures.
func TestShardedStormMatchesOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and three harness processes")
	}
	lockPackage(t) // one real-etcd test at a time, machine-wide (a starved run measures the machine)
	args := append(slices.Clone(stormArgs), "--retry-invalid", "0")
	single := oneProcessStorm(t)
	// A merged run whose gates failed (the members starved by the three
	// harness processes and whatever else runs) judges nothing: run the
	// shards again, and skip, saying why, after three such runs.
	for range 3 {
		merged, err := runShards(t, args)
		if errors.Is(err, errInvalid) {
			t.Logf("invalid merged run: %s", scentest.InvalidWhy(merged))
			continue
		}
		if err != nil && !errors.Is(err, errNotReproduced) {
			t.Fatalf("merge: %v; checks %s", err, scentest.Names(merged))
		}
		compareStorms(t, single, merged, "one process", "two shards")
		return
	}
	t.Skip("three invalid merged runs: the machine starved the shards")
}

// runShards runs the storm in two processes, shards 0/2 and 1/2, and
// merges their histories; it returns the merged result and merge's error.
func runShards(t *testing.T, args []string) (*report.Result, error) {
	t.Helper()
	dirs := []string{t.TempDir(), t.TempDir()}
	start := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	shard := append(args, "--start-at", start, "--format", "json")
	c0 := stormCommand(append(shard, "--shard", "0/2", "--port-base", "12400", "--out", dirs[0]))
	c1 := stormCommand(append(shard, "--shard", "1/2", "--port-base", "12500", "--out", dirs[1],
		"--shard-endpoints", "http://127.0.0.1:12400,http://127.0.0.1:12402,http://127.0.0.1:12404"))
	for _, c := range []*exec.Cmd{c0, c1} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []*exec.Cmd{c0, c1} {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d/2: %v\n%s", i, err, c.Stderr)
		}
	}
	return mergeDirs(t, dirs)
}

// mergeDirs merges the shards' saved histories in dirs with the command's
// merge and returns the merged result and merge's outcome as an error:
// errInvalid or errNotReproduced for its exit codes 3 and 1.
func mergeDirs(t *testing.T, dirs []string) (*report.Result, error) {
	t.Helper()
	cmd := exec.Command(cmdrun.Exe, append([]string{"merge", "--format", "json"}, dirs...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var merged report.Result
	if jerr := json.Unmarshal(out, &merged); jerr != nil {
		t.Fatalf("merged report: %v (merge: %v: %s)", jerr, err, stderr.String())
	}
	return &merged, exitError(err, stderr.String())
}

// The command's outcomes a merged run may have besides success.
var (
	errInvalid       = errors.New("invalid run (exit 3)")
	errNotReproduced = errors.New("not reproduced (exit 1)")
)

// exitError maps a finished command's error to errInvalid,
// errNotReproduced, or itself with the command's last stderr line.
func exitError(err error, stderr string) error {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() == cmdrun.ExitInvalid:
		return errInvalid
	case errors.As(err, &ee) && ee.ExitCode() == cmdrun.ExitNotReproduced:
		return errNotReproduced
	}
	return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr))
}

func stormCommand(args []string) *exec.Cmd {
	exe := cmdrun.Exe
	cmd := exec.Command(exe, args...)
	cmd.Env = os.Environ()
	cmd.Stderr = &strings.Builder{}
	return cmd
}

// runValidStorm runs the storm in one process, letting the command retry
// an invalid run (a gate failed: the machine starved the members or the
// harness) twice with --retry-invalid; still invalid, the test is skipped,
// saying why.
func runValidStorm(t *testing.T, args []string) *report.Result {
	t.Helper()
	res, code := runStormProcess(t, append(args, "--retry-invalid", "2"))
	if code == cmdrun.ExitInvalid {
		t.Skipf("three invalid one-process runs: the machine starved the storm: %s", scentest.InvalidWhy(res))
	}
	return res
}

// runStormProcess runs the storm in one process and returns its report and
// exit code (reproduced, not reproduced or invalid; any other is fatal).
func runStormProcess(t *testing.T, args []string) (*report.Result, int) {
	t.Helper()
	cmd := stormCommand(append(args, "--format", "json"))
	b, err := cmd.Output()
	code := cmd.ProcessState.ExitCode()
	if code != 0 && code != cmdrun.ExitNotReproduced && code != cmdrun.ExitInvalid {
		t.Fatalf("one process: exit %d (%v)\n%s", code, err, cmd.Stderr)
	}
	var res report.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("one process: exit %d, report: %v", code, err)
	}
	return &res, code
}

// compareStorms wants both runs valid with the whole fleet listed, drained
// and back, and the same verdict on every check but the registry's error
// difference (a handful of calls held by the blackhole end DeadlineExceeded
// at the heal, in either run, so its sign is noise at this size).
func compareStorms(t *testing.T, single, merged *report.Result, singleName, mergedName string) {
	t.Helper()
	n, err := strconv.ParseFloat(fmt.Sprint(single.Params["instances"]), 64)
	if err != nil {
		t.Fatalf("%s: --instances %v: %v", singleName, single.Params["instances"], err)
	}
	for _, k := range []string{"immediate.registered", "jitter.registered", "immediate.listed_at_loss", "jitter.listed_at_loss"} {
		if single.Metrics[k] != n || merged.Metrics[k] != n {
			t.Errorf("%s: %s %g, %s %g, want %g", k, singleName, single.Metrics[k], mergedName, merged.Metrics[k], n)
		}
	}
	verdicts := map[string]report.Verdict{}
	for _, c := range single.Checks {
		verdicts[c.Name] = c.Verdict
	}
	for _, c := range merged.Checks {
		if strings.Contains(c.Name, "answered with an error") {
			continue
		}
		if c.Verdict == report.Invalid || c.Verdict != verdicts[c.Name] {
			t.Errorf("%s: %s %s (%s), %s %s", c.Name, mergedName, c.Verdict, c.MeasuredText, singleName, verdicts[c.Name])
		}
	}
	for _, k := range []string{"immediate.registry.peak_per_100ms", "jitter.registry.peak_per_100ms", "jitter.converge_s"} {
		t.Logf("%s: %s %s, %s %s", k, singleName, fmtMetric(single.Metrics[k]), mergedName, fmtMetric(merged.Metrics[k]))
	}
}

func fmtMetric(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// embeddedStorm is the storm of stormArgs run once in one process on the harness's own members,
// shared by the tests that compare another run with it (TestExternalStorm,
// TestShardedStormMatchesOneProcess): the same run twice would cost the lock a storm.
var embeddedStorm struct {
	once sync.Once
	res  *report.Result
	code int
}

// oneProcessStorm returns the embedded storm's report, run at the first call, or skips, saying
// why, when its three runs (the command's two retries) were all invalid.
func oneProcessStorm(t *testing.T) *report.Result {
	t.Helper()
	embeddedStorm.once.Do(func() {
		embeddedStorm.res, embeddedStorm.code = runStormProcess(t, append(stormArgs, "--port-base", "12300", "--retry-invalid", "2"))
	})
	if embeddedStorm.code == cmdrun.ExitInvalid {
		t.Skipf("three invalid one-process runs: the machine starved the storm: %s", scentest.InvalidWhy(embeddedStorm.res))
	}
	return embeddedStorm.res
}
