// Package netnstest runs a test inside a private network namespace: the
// test binary re-executes itself there with only that test selected.
package netnstest

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"sdchaos/netns"
)

// Enter reports whether the calling top-level test runs inside a private
// namespace; the test then runs its body. Otherwise Enter skips under
// -short and where netns.Supported refuses (with its reason), else
// re-executes the test binary with only this test selected inside a fresh
// namespace, logs the child's output, fails the test if the child failed,
// skips it if the child skipped, and returns false. The package's TestMain
// must call childproc.Dispatch first.
func Enter(t *testing.T) bool {
	t.Helper()
	if netns.Inside() {
		return true
	}
	if testing.Short() {
		t.Skip("starts a private user + network namespace")
	}
	if err := netns.Supported(); err != nil {
		t.Skipf("no private network namespace on this machine: %v", err)
	}
	var out bytes.Buffer
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.Name()) + "$", "-test.v", "-test.count=1"}
	code, err := netns.Cmd{Args: args, Env: os.Environ(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}.Run()
	if err != nil {
		t.Fatalf("re-executing %s in a private namespace: %v", t.Name(), err)
	}
	t.Logf("inside the namespace:\n%s", out.String())
	switch {
	case code != 0:
		t.Errorf("%s failed inside the namespace (exit %d)", t.Name(), code)
	case strings.Contains(out.String(), "--- SKIP: "+t.Name()):
		t.Skip("skipped inside the namespace (see the log)")
	}
	return false
}
