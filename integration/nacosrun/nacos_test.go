package nacosrun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/internal/cmdrun"
	"sdchaos/internal/machinelock"

	"sdchaos/report"
)

// shortNacosUnreachable is registry-unreachable shortened for a test: 3 instances, the two
// policy callers and nacos-sdk-go (no JVM client: the server is the one JVM), every link
// blackholed for 8 s.
const shortNacosUnreachable = `name: nacos-unreachable-short
summary: registry-unreachable shortened for a test
duration: 14s
instances:
  count: 3
callers:
  - name: keep
    kind: policy
    policy: keep
  - name: clear
    kind: policy
    policy: clear
  - name: go-sdk
    kind: client
    client: go-sdk
timeline:
  - at: 2s
    for: 8s
    fault: registry-unreachable
    how: blackhole
`

// TestRegistryUnreachableOnRealNacos runs the registry-neutral experiment, shortened, on a real
// Nacos server through the command: every check Nacos's rules call for holds (keep and
// nacos-sdk-go fail nothing, clear fails from its first refresh past the cut until the heal,
// the server removes no instance in 8 s), the example client (a caller of kind exec, on the
// same server) served calls, nothing is left, and recheck judges the saved history again.
func TestRegistryUnreachableOnRealNacos(t *testing.T) {
	cmdrun.NeedJVM(t, "a real Nacos server")
	defer machinelock.Take(t)()
	dir, tmp := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "short.yaml")
	if err := os.WriteFile(file, []byte(withExampleClient(shortNacosUnreachable, buildExampleClient(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	cmd := exec.Command(cmdrun.Exe, "run", file, "--registry", "nacos", "--quiet", "--port-base", "19150", "--out", dir, "--format", "json")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	if err != nil && out.Len() == 0 {
		t.Fatalf("run: %v\n%s", err, errw.String())
	}
	cmdrun.Eventually(t, "child processes (the JVM, the example client)", func() string { return cmdrun.Children(cmd.Process.Pid) })
	cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
	var res report.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("the JSON result: %v\n%.400s", err, out.String())
	}
	t.Logf("verdict %s, wall %.1f s", res.Verdict, res.WallSeconds)
	checkExampleClient(t, &res)
	if res.Verdict == report.Invalid {
		t.Skipf("the run was invalid on this machine (judged nothing): %s", checksOf(&res))
	}
	if !res.Reproduced {
		t.Errorf("verdict %s: %s", res.Verdict, checksOf(&res))
	}
	for _, name := range []string{"keep", "go-sdk"} {
		if s, ok := res.Series[name]; !ok || sum(s.Fail) != 0 || sum(s.OK) == 0 {
			t.Errorf("%s: want calls, none failed: %+v", name, s)
		}
	}
	if b, err := exec.Command(cmdrun.Exe, "recheck", dir).CombinedOutput(); err != nil {
		t.Errorf("recheck: %v\n%s", err, b)
	}
}

// checksOf lists a result's checks and their verdicts, for a failure's message.
func checksOf(res *report.Result) string {
	var b strings.Builder
	for _, c := range res.Checks {
		b.WriteString(c.Name + ": " + c.MeasuredText + " → " + string(c.Verdict) + "; ")
	}
	return b.String()
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
