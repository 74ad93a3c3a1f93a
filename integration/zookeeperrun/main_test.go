package zookeeperrun_test

import (
	"testing"

	"sdchaos/childproc"
	"sdchaos/internal/cmdrun"
)

// TestMain dispatches the hidden sub-commands first (the in-process zookeeper-cp run starts
// its children from the test binary), then builds the command once.
func TestMain(m *testing.M) {
	childproc.Dispatch()
	cmdrun.Main(m)
}
