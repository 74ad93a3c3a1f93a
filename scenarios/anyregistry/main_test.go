package anyregistry

import (
	"os"
	"testing"

	"sdchaos/childproc"
)

// TestMain dispatches the hidden sub-commands first: the real runs start etcd members as
// children of the test binary.
func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}
