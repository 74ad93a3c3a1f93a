// Package machinelock is the machine-wide lock the real, timing-sensitive
// tests take, one at a time, whichever package runs them: a first-come,
// first-served queue in a file under the temp dir (go test runs packages in
// parallel; a run's timing bands assume the machine is not shared).
package machinelock

import (
	"os"
	"testing"
	"time"
)

// Take takes the machine-wide lock the real tests share (they
// are timing sensitive, and go test runs packages in parallel) and returns
// its release; a test that runs scenarios in its own way takes it too. The
// lock is first come, first served (see machineQueue): a package that
// takes it test after test never keeps another waiting past one test.
func Take(t testing.TB) func() {
	t.Helper()
	asked := time.Now()
	release, err := machineQueue{dir: os.TempDir()}.acquire()
	if err != nil {
		t.Fatalf("taking the test lock: %v", err)
	}
	took := time.Now()
	t.Logf("machine lock: waited %.1f s", took.Sub(asked).Seconds())
	return func() {
		release()
		t.Logf("machine lock: held %.1f s", time.Since(took).Seconds())
	}
}
