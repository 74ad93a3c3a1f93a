package nacosarticle

import (
	"os"
	"testing"

	"sdchaos/scenarios/scentest"
)

// BenchmarkStormHarnessCost runs the storm for real and reports what the
// harness (registrants, proxies, probes) cost next to the registry: its
// share of the run's CPU and its peak RSS, per strategy. One iteration is
// a whole run of a minute or two, so run it once:
//
//	go test -run '^$' -bench StormHarnessCost -benchtime 1x ./scenarios/nacosarticle
//
// SDCHAOS_BENCH_N sets the registrants (5000 by default, the size the
// harness's cost target is stated at). Add -cpuprofile to see where the
// harness's own time goes (the members are other processes).
func BenchmarkStormHarnessCost(b *testing.B) {
	n := os.Getenv("SDCHAOS_BENCH_N")
	if n == "" {
		n = "5000"
	}
	for i := 0; i < b.N; i++ {
		res := scentest.Run(b, 13500, "runs real etcd processes", "reregistration-storm", "--instances", n)
		for _, st := range []string{"immediate", "jitter"} {
			b.ReportMetric(100*res.Metrics[st+".cost.harness_cpu_share"], st+"-harness-cpu-%")
			b.ReportMetric(res.Metrics[st+".cost.harness_peak_rss_mib"], st+"-harness-peak-MiB")
			b.ReportMetric(res.Metrics[st+".registry.peak_per_100ms"], st+"-registry-peak/100ms")
		}
	}
}
