package eurekarun_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sdchaos/report"
)

// exampleClient is the name of the user's program's caller the real test adds.
const exampleClient = "example-client"

// buildExampleClient builds examples/discovery-client into the test's temp dir.
func buildExampleClient(t *testing.T) string {
	t.Helper()
	start := time.Now()
	bin := filepath.Join(t.TempDir(), "discovery-client")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/discovery-client").CombinedOutput(); err != nil {
		t.Fatalf("building the example client: %v\n%s", err, out)
	}
	t.Logf("example client built in %.1f s", time.Since(start).Seconds())
	return bin
}

// withExampleClient adds the example client (bin) as a caller of kind exec
// to an experiment written as data.
func withExampleClient(yaml, bin string) string {
	return strings.Replace(yaml, "\ntimeline:", fmt.Sprintf("\n  - name: %s\n    kind: exec\n    command: [%q]\ntimeline:", exampleClient, bin), 1)
}

// checkExampleClient asserts the example client's row served calls.
func checkExampleClient(t *testing.T, res *report.Result) {
	t.Helper()
	s, ok := res.Series[exampleClient]
	if !ok {
		t.Errorf("no row of %s among %d rows", exampleClient, len(res.Series))
		return
	}
	good, fail := s.Total()
	t.Logf("%s: %d ok, %d failed; per second ok %v, failed %v", exampleClient, good, fail, s.OK, s.Fail)
	if good == 0 {
		t.Errorf("%s served no call (%d failed)", exampleClient, fail)
	}
}
