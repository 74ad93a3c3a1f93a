package nacosarticle

import (
	"os"
	"testing"

	"sdchaos/scenarios/scentest"
)

func TestZZProfileStorm(t *testing.T) {
	if os.Getenv("SDCHAOS_PROFILE") == "" {
		t.Skip("profiling only")
	}
	scentest.Run(t, 13500, "", "reregistration-storm", "--instances", "5000")
}
