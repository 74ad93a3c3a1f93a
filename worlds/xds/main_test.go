package xds

import (
	"os"
	"testing"

	"sdchaos/childproc"
)

// Test ports: from 31400 (a range no other package's tests use).
const testPortBase = 31400

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}
