package nacosclusterrun_test

import (
	"testing"

	"sdchaos/childproc"
	"sdchaos/internal/cmdrun"
)

// TestMain dispatches the hidden sub-commands first (netns.Supported runs its probe as one in a
// fresh namespace), then builds the command once.
func TestMain(m *testing.M) {
	childproc.Dispatch()
	cmdrun.Main(m)
}
