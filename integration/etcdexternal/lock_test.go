package etcdexternal

import (
	"sync"
	"testing"

	"sdchaos/internal/machinelock"
)

// packageLock takes the machine lock once for the whole package.
var packageLock sync.Once

// lockPackage takes the machine lock at the package's first timed test and
// keeps it until the test binary exits (the queue drops the ticket of a
// process that is gone). Taken test by test, each of the package's seven
// tests queued behind one test of the package beside it, and on a slow day
// the waits pushed the package past go test's 10-minute limit (606 s); held
// once, the package waits once.
func lockPackage(t *testing.T) {
	t.Helper()
	packageLock.Do(func() { _ = machinelock.Take(t) })
}
