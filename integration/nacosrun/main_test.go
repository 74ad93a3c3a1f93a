package nacosrun_test

import (
	"testing"

	"sdchaos/internal/cmdrun"
)

func TestMain(m *testing.M) { cmdrun.Main(m) }
