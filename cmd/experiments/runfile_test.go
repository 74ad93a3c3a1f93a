package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFileRefusesABadFileInOneLine: a file that is not an experiment,
// a missing file, no file, a name that is neither a file nor a built-in, a
// chain whose first part crashes an instance for good, and a world that
// does not exist each end with
// one line on stderr and exit 2, before anything starts.
func TestRunFileRefusesABadFileInOneLine(t *testing.T) {
	example, err := os.ReadFile("../../examples/experiments/unreachable-40s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, bytes.Replace(example, []byte("fault: crash-instance"), []byte("fault: unplug"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "want an experiment file"},
		{[]string{"run", filepath.Join(dir, "none.yaml")}, "no such file"},
		{[]string{"run", bad}, `bad.yaml: timeline[1].fault: want one of`},
		{[]string{"run", "../../examples/experiments/unreachable-40s.yaml", "--registry", "consul"}, `no registry "consul"`},
		{[]string{"run", "no-such-experiment"}, `"no-such-experiment" is neither a built-in experiment`},
		{[]string{"run", "instance-dies-unreachable", "registry-unreachable"}, "instance-dies-unreachable: timeline[1] crashes an instance for good"},
	}
	for _, tc := range tests {
		var out, errw bytes.Buffer
		code := exitCode(run(context.Background(), tc.args, &out, &errw), &errw)
		msg := strings.TrimSpace(errw.String())
		if code != exitError || !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, msg, exitError, tc.want)
		}
	}
}

// TestRunFileRunsTheExampleShortened runs the docs' example, shortened, on
// real etcd: every check from etcd's rules holds, and recheck judges the
// saved history again from the experiment it carries.
func TestRunFileRunsTheExampleShortened(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real etcd processes")
	}
	example, err := os.ReadFile("../../examples/experiments/unreachable-40s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	short := strings.NewReplacer("duration: 50s", "duration: 14s", "for: 40s", "for: 8s", "at: 10s", "at: 6s").Replace(string(example))
	dir := t.TempDir()
	file := filepath.Join(dir, "short.yaml")
	if err := os.WriteFile(file, []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	out.Reset()
	err = run(context.Background(), []string{"run", file, "--quiet", "--port-base", "11150", "--out", dir, "--format", "json"}, &out, &errw)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errw.String())
	}
	if !strings.Contains(out.String(), `"scenario": "unreachable-40s"`) {
		t.Errorf("the result is not named after the experiment:\n%.400s", out.String())
	}
	out.Reset()
	if err := recheck([]string{dir}, &out); err != nil {
		t.Errorf("recheck: %v\n%s", err, out.String())
	}
}
