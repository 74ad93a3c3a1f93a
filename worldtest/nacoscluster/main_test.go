package nacoscluster_test

import (
	"testing"

	"sdchaos/worldtest/internal/cmdrun"
)

func TestMain(m *testing.M) { cmdrun.Main(m) }
