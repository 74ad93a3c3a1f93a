package scenarios

import (
	"os"
	"testing"

	"sdchaos/childproc"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}
