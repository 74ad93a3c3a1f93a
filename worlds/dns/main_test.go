package dns

import (
	"os"
	"testing"

	"sdchaos/childproc"
	"sdchaos/internal/machinelock"
)

// testPortBase keeps this package's ports apart from other packages' tests.
const testPortBase = 21700

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// needReal skips a test that starts real processes under -short.
func needReal(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real etcd and CoreDNS processes: skipped under -short")
	}
	t.Cleanup(machinelock.Take(t)) // its bands time DNS answers and refreshes: one timed run on the machine at a time
}

// newSup returns a supervisor closed at the end of the test.
func newSup(t *testing.T) *childproc.Supervisor {
	t.Helper()
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Close() })
	return sup
}
