package nacosarticle

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"sdchaos/netns"
	"sdchaos/scenarios/scentest"
)

// BenchmarkStormHarnessCost runs the storm for real and reports what the
// harness (registrants, proxies, probes) cost next to the registry: its
// share of the run's CPU and its peak RSS, per strategy, on the host's
// loopback (the proxies' blackhole) and with --net private (the packet
// cut, no proxies). One iteration is a whole run of a minute or two, so
// run it once:
//
//	go test -run '^$' -bench StormHarnessCost -benchtime 1x ./scenarios/nacosarticle
//	go test -run '^$' -bench 'StormHarnessCost/loopback' -benchtime 1x ./scenarios/nacosarticle
//
// SDCHAOS_BENCH_N sets the registrants (5000 by default, the size the
// harness's cost target is stated at). Add -cpuprofile to see where the
// harness's own time goes (the members are other processes); in private
// mode the harness is the re-executed benchmark: SDCHAOS_BENCH_CPUPROFILE=FILE
// profiles it.
func BenchmarkStormHarnessCost(b *testing.B) {
	b.Run("loopback", func(b *testing.B) { benchStorm(b) })
	b.Run("private", func(b *testing.B) {
		if netns.Inside() {
			benchStorm(b, "--net", "private")
			return
		}
		benchInPrivateNet(b)
	})
}

// benchStorm runs the storm b.N times with args and reports its cost metrics.
func benchStorm(b *testing.B, args ...string) {
	n := os.Getenv("SDCHAOS_BENCH_N")
	if n == "" {
		n = "5000"
	}
	for i := 0; i < b.N; i++ {
		res := scentest.Run(b, 13500, "runs real etcd processes", "reregistration-storm", append([]string{"--instances", n}, args...)...)
		for _, st := range []string{"immediate", "jitter"} {
			b.ReportMetric(100*res.Metrics[st+".cost.harness_cpu_share"], st+"-harness-cpu-%")
			b.ReportMetric(res.Metrics[st+".cost.harness_peak_rss_mib"], st+"-harness-peak-MiB")
			b.ReportMetric(res.Metrics[st+".registry.peak_per_100ms"], st+"-registry-peak/100ms")
			b.ReportMetric(res.Metrics[st+".cost.registrants_per_harness_core"], st+"-registrants/harness-core")
			b.ReportMetric(res.Metrics[st+".lateness.p99_ms"], st+"-lateness-p99-ms")
		}
	}
}

// benchInPrivateNet runs the private sub-benchmark in a fresh private
// network namespace (the test binary again, that benchmark only), b.N times,
// and reports the metrics its benchmark line gave.
func benchInPrivateNet(b *testing.B) {
	if testing.Short() {
		b.Skip("runs real etcd processes")
	}
	if err := netns.Supported(); err != nil {
		b.Skipf("no private network namespace on this machine: %v", err)
	}
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		args := []string{"-test.run=^$", "-test.bench=^BenchmarkStormHarnessCost$/^private$", "-test.benchtime=1x", "-test.count=1"}
		if prof := os.Getenv("SDCHAOS_BENCH_CPUPROFILE"); prof != "" {
			args = append(args, "-test.cpuprofile="+prof)
		}
		code, err := netns.Cmd{Args: args, Env: os.Environ(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}.Run()
		if err != nil || code != 0 {
			b.Fatalf("the benchmark in a private namespace: exit %d, %v\n%s", code, err, out.String())
		}
		metrics, err := benchMetrics(out.String())
		if err != nil {
			b.Fatalf("%v\n%s", err, out.String())
		}
		for unit, v := range metrics {
			b.ReportMetric(v, unit)
		}
	}
}

// benchMetrics reads the custom metrics of the one benchmark result line
// in out ("Benchmark… 1 N ns/op V unit V unit …").
func benchMetrics(out string) (map[string]float64, error) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkStormHarnessCost/private") {
			continue
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("benchmark line %q: %v", line, err)
			}
			if f[i+1] != "ns/op" {
				m[f[i+1]] = v
			}
		}
		return m, nil
	}
	return nil, fmt.Errorf("no benchmark result line from the private namespace")
}
