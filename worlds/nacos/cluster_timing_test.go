package nacos

import (
	"os"
	"strings"
	"testing"
	"time"
)

// startMeasures are the steps from Nacos's defaults to DefaultClusterSpec, each adding one
// measure to the previous step, in the order docs/nacos-real.md reports them.
var startMeasures = []struct {
	name string
	edit func(*ClusterSpec)
}{
	{"baseline", func(s *ClusterSpec) {
		s.CDS, s.Member.QuickJIT, s.Mode, s.DistroLoadRetry = false, false, AllModules, 0
	}},
	{"distro-retry", func(s *ClusterSpec) { s.CDS, s.Member.QuickJIT, s.Mode = false, false, AllModules }},
	{"naming-only", func(s *ClusterSpec) { s.CDS, s.Member.QuickJIT = false, false }},
	{"c1", func(s *ClusterSpec) { s.CDS = false }},
	{"cds", func(*ClusterSpec) {}},
}

// TestClusterStartTimes measures the cluster's start with each measure added in turn, one
// fresh cluster per step (SDCHAOS_NACOS_CLUSTER_TIMING=1; SDCHAOS_NACOS_CLUSTER_STEPS=a,b
// picks steps by name). It logs the times and RSS; it judges nothing, the numbers go to the
// docs with the machine's load at the time.
func TestClusterStartTimes(t *testing.T) {
	needJVM(t)
	if os.Getenv("SDCHAOS_NACOS_CLUSTER_TIMING") == "" {
		t.Skip("set SDCHAOS_NACOS_CLUSTER_TIMING=1 to measure the cluster's start per measure (minutes)")
	}
	pick := os.Getenv("SDCHAOS_NACOS_CLUSTER_STEPS")
	for i, step := range startMeasures {
		if pick != "" && !strings.Contains(","+pick+",", ","+step.name+",") {
			continue
		}
		t.Run(step.name, func(t *testing.T) {
			sup := newSup(t)
			t.Logf("load before: %s", loadAvg())
			startCluster(t, sup, clusterPortBase+10+10*i, func(s *ClusterSpec) {
				step.edit(s)
				s.Member.ReadyTimeout = 15 * time.Minute // the slow steps under other sessions' load
			})
			t.Logf("load after: %s", loadAvg())
		})
	}
}

// loadAvg returns /proc/loadavg's first three fields.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
