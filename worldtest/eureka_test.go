package worldtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
// call for is reproduced, and the run leaves no JVM, no listening port and
// no temp dir. A run the machine starved (invalid) is run once more, then
// the test skips, saying why.
func TestRegistryUnreachableOnRealEureka(t *testing.T) {
	needJVM(t, "real Eureka servers")
	builtin, err := os.ReadFile("../scenarios/anyregistry/builtin/registry-unreachable.yaml")
	if err != nil {
		t.Fatal(err)
	}
	short := strings.NewReplacer("duration: 30s", "duration: 14s", "at: 3s", "at: 2s", "for: 18s", "for: 8s").Replace(string(builtin))
	file := filepath.Join(t.TempDir(), "short.yaml")
	if err := os.WriteFile(file, []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	defer scentest.LockMachine(t)()
	var why string
	for range 2 {
		res := runEurekaRegistry(t, file)
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
	cmd := exec.Command(exe, "run", file, "--registry", "eureka", "--quiet", "--format", "json", "--retry-invalid", "0",
		"--port-base", strconv.Itoa(eurekaRegistryBase))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitReproduced && code != exitNotReproduced && code != exitInvalid {
		t.Fatalf("exit %d (%v):\n%s", code, err, errw.String())
	}
	eventually(t, "child processes (JVMs)", func() string { return children(cmd.Process.Pid) })
	eventually(t, "listening ports", func() string { return busyPorts(eurekaRegistryBase, eurekaRegistryBase+40) })
	eventually(t, "temp dirs", func() string { return leftovers(tmp) })
	var res report.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("decoding the result: %v\n%.600s", err, out.String())
	}
	return &res
}
