package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

func TestDedupEventsKeepsEachScheduledEventOnce(t *testing.T) {
	ev := func(at time.Duration, p history.Phase) history.Event {
		return history.Event{At: at, Kind: history.BlackholeLinks, Phase: p, Label: "blackhole client links to 3 etcd members"}
	}
	in := history.Events{ev(10*time.Second, history.Inject), ev(10*time.Second+3*time.Millisecond, history.Inject),
		ev(15*time.Second, history.Heal), ev(15*time.Second+time.Millisecond, history.Heal), ev(40*time.Second, history.Inject)}
	got := dedupEvents(in)
	if len(got) != 3 || got[0].At != 10*time.Second || got[1].At != 15*time.Second || got[2].At != 40*time.Second {
		t.Fatalf("dedup = %+v", got)
	}
}

// writeShardHistory saves a history with the given args into a new dir.
func writeShardHistory(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	fh, err := os.Create(filepath.Join(dir, "reregistration-storm"+historySuffix))
	if err != nil {
		t.Fatal(err)
	}
	h := &history.History{Data: json.RawMessage(`{"t0_unix_ns":1,"settle_ns":1,"phases":[]}`)}
	if err := history.WriteHistory(fh, history.HistoryHeader{Scenario: "reregistration-storm", Args: args, Seed: 1}, h); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	return dir
}

func TestMergeRefusesWhatIsNotOneShardedRun(t *testing.T) {
	s0 := writeShardHistory(t, "--instances=100", "--shard=0/2")
	s1 := writeShardHistory(t, "--instances=100", "--shard=1/2", "--shard-endpoints=http://127.0.0.1:12000")
	other := writeShardHistory(t, "--instances=200", "--shard=1/2")
	whole := writeShardHistory(t, "--instances=100", "--shard=0/1")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{s0}, "at least two shard directories"},
		{[]string{s0, whole}, "was not recorded by a shard"},
		{[]string{s0, other}, "ran with other arguments"},
		{[]string{s0, s0}, "want shards 0/2 … 1/2 each once"},
		{[]string{s0, t.TempDir()}, "holds 0 saved histories"},
		{[]string{"--format", "xml", s0, s1}, "--format"},
	}
	for _, tc := range tests {
		err := merge(tc.args, &strings.Builder{})
		if !errors.Is(err, scenarios.ErrUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("merge %v = %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
	if _, err := readShards([]string{s1, s0}); err != nil {
		t.Errorf("two shards of one run: %v", err)
	}
}

// TestShardedStormMatchesOneProcess is the proof on loopback: the storm at
// 1000 registrants run by one process, and by two processes with shards
// 0/2 and 1/2 merged, give the same verdicts on the judge's checks and the
// same fleet figures.
func TestShardedStormMatchesOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and three harness processes")
	}
	defer scentest.LockMachine(t)() // one real-etcd test at a time, machine-wide (a starved run measures the machine)
	args := []string{"reregistration-storm", "--instances", "1000", "--ttl", "3s", "--renew", "1s", "--revoke-rate", "1000",
		"--duration", "20s", "--quiet", "--retry-invalid", "0"}
	single := runValidStorm(t, append(args, "--port-base", "12300"))
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

// mergeDirs merges the shards' saved histories in dirs and returns the
// merged result and merge's error.
func mergeDirs(t *testing.T, dirs []string) (*report.Result, error) {
	t.Helper()
	var out strings.Builder
	err := merge(append([]string{"--format", "json"}, dirs...), &out)
	var merged report.Result
	if jerr := json.Unmarshal([]byte(out.String()), &merged); jerr != nil {
		t.Fatalf("merged report: %v (merge: %v)", jerr, err)
	}
	return &merged, err
}

func stormCommand(args []string) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envRunMain+"=1")
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
	if code == exitInvalid {
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
	if code != 0 && code != exitNotReproduced && code != exitInvalid {
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
