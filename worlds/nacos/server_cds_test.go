package nacos

import (
	"os"
	"strconv"
	"testing"
)

// TestServerStartWithAndWithoutCDS measures, side by side, a standalone server's start (JVM
// launch → ready) without class-data sharing and with the cluster's AppCDS archive,
// alternating, SDCHAOS_NACOS_CDS_TIMING times each (opt-in: minutes).
func TestServerStartWithAndWithoutCDS(t *testing.T) {
	needJVM(t)
	n, _ := strconv.Atoi(os.Getenv("SDCHAOS_NACOS_CDS_TIMING"))
	if n < 1 {
		t.Skip("set SDCHAOS_NACOS_CDS_TIMING=N to start the server N times with and without CDS (minutes)")
	}
	start := func(slot int, noCDS bool) float64 {
		sup := newSup(t)
		defer sup.Close()
		s := startServerSpec(t, sup, slot, func(s *ServerSpec) { s.NoCDS = noCDS })
		return s.StartupTime().Seconds()
	}
	for i := range n {
		without, with := start(20+2*i, true), start(21+2*i, false)
		t.Logf("round %d: ready without CDS %.1f s, with CDS %.1f s", i+1, without, with)
	}
}
