package scentest

import (
	"os"
	"testing"
)

// LongEnv names the environment variable that runs the long tier: real runs that go test ./...
// leaves out because together they would take the suite past its 30-minute budget on a 2-core
// machine (most of the suite's time is the real runs' turns at the machine lock).
const LongEnv = "SDCHAOS_LONG_TESTS"

// NeedLong skips a long-tier test unless $SDCHAOS_LONG_TESTS is 1, saying how long it takes.
func NeedLong(t *testing.T, takes string) {
	t.Helper()
	if os.Getenv(LongEnv) != "1" {
		t.Skipf("long tier (%s): set %s=1 to run it", takes, LongEnv)
	}
}
