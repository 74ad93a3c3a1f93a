package eurekareal

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"sdchaos/ports"
)

// TestClusterStartWithAndWithoutCDS measures, side by side, the start of three servers (launch
// → every one open and the probes replicated) without class-data sharing and with the AppCDS
// archive (cds.go), alternating, SDCHAOS_EUREKA_CDS_TIMING times each (opt-in: minutes). The
// first start with CDS writes the archive when there is none yet; it is left out.
func TestClusterStartWithAndWithoutCDS(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SDCHAOS_EUREKA_CDS_TIMING"))
	if testing.Short() || n < 1 {
		t.Skip("set SDCHAOS_EUREKA_CDS_TIMING=N to start the cluster N times with and without CDS (minutes)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := func(i int, noCDS bool) time.Duration {
		sup := newSupervisor(t)
		defer sup.Close()
		alloc := ports.New(testBase+10*i, "the test's port base")
		t0 := time.Now()
		startCluster(t, ctx, sup, alloc, ClusterSpec{Props: scaledProps(), NoCDS: noCDS})
		return time.Since(t0)
	}
	start(0, false) // writes the archive if there is none
	for i := range n {
		without, with := start(1+2*i, true), start(2+2*i, false)
		t.Logf("round %d: without CDS %.1f s, with CDS %.1f s", i+1, without.Seconds(), with.Seconds())
	}
}
