package nacosprotectrun_test

import (
	"os"
	"testing"

	"sdchaos/childproc"
)

// TestMain dispatches the hidden sub-commands first: the in-process runs start their
// children from the test binary.
func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}
