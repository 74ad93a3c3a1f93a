package article40

import (
	"slices"
	"testing"
	"time"

	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// noPorts is the port base passed to scentest.Run: the room's scenarios
// listen on nothing.
const noPorts = 0

func TestArticle40FlagValidation(t *testing.T) {
	scentest.CheckValidation(t, []scentest.ValidationCase{
		{Scenario: "expiry-latency"},
		{Scenario: "expiry-latency", Args: []string{"--ttl", "0s"}, WantErr: "--ttl (0s)"},
		{Scenario: "expiry-latency", Args: []string{"--ttl", "-2s"}, WantErr: "--ttl (-2s)"},
		{Scenario: "expiry-latency", Args: []string{"--crashes", "1"}, WantErr: "--crashes (1)"},
		{Scenario: "expiry-latency", Args: []string{"--scan-slow", "0s"}, WantErr: "--scan-slow (0s)"},
		{Scenario: "expiry-latency", Args: []string{"--scan-fast", "-1ms"}, WantErr: "--scan-fast (-1ms)"},
		{Scenario: "ttl-false-removal"},
		{Scenario: "ttl-false-removal", Args: []string{"--loss", "1"}, WantErr: "--loss (1)"},
		{Scenario: "ttl-false-removal", Args: []string{"--loss", "1.5"}, WantErr: "--loss (1.5)"},
		{Scenario: "ttl-false-removal", Args: []string{"--loss", "-0.1"}, WantErr: "--loss (-0.1)"},
		{Scenario: "ttl-false-removal", Args: []string{"--loss", "0"}},
		{Scenario: "ttl-false-removal", Args: []string{"--ttls", ""}, WantErr: "--ttls is empty"},
		{Scenario: "ttl-false-removal", Args: []string{"--ttls", "2,0"}, WantErr: "ttl 0 s must be positive"},
		{Scenario: "ttl-false-removal", Args: []string{"--ttls", "2,2s"}, WantErr: "lists 2 s twice"},
		{Scenario: "ttl-false-removal", Args: []string{"--ttls", "two"}, WantErr: `"two" is neither seconds nor a duration`},
		{Scenario: "ttl-false-removal", Args: []string{"--instances", "0"}, WantErr: "--instances (0)"},
		{Scenario: "ttl-false-removal", Args: []string{"--registry-instances", "0"}, WantErr: "--registry-instances (0)"},
		{Scenario: "ttl-false-removal", Args: []string{"--registry-instances", "100000", "--duration", "3600s"},
			WantErr: "--registry-instances (100000) × 3600 ticks × 4 ttls"},
		{Scenario: "ttl-false-removal", Args: []string{"--heartbeat", "0s"}, WantErr: "--heartbeat (0s)"},
		{Scenario: "ttl-false-removal", Args: []string{"--duration", "500ms"}, WantErr: "--duration (500ms) is shorter"},
		{Scenario: "expiry-scan-cost"},
		{Scenario: "expiry-scan-cost", Args: []string{"--sizes", ""}, WantErr: "--sizes gives 0 sizes"},
		{Scenario: "expiry-scan-cost", Args: []string{"--sizes", "10000,100000,1000000"}, WantErr: "needs at least 4 distinct"},
		{Scenario: "expiry-scan-cost", Args: []string{"--sizes", "1000,50,100000,1000000"}, WantErr: "--sizes: 50 must be above --due (100)"},
		{Scenario: "expiry-scan-cost", Args: []string{"--sizes", "10000,30000,10000,1000000"}, WantErr: "--sizes lists 10000 twice"},
		{Scenario: "expiry-scan-cost", Args: []string{"--sizes", "1e6"}, WantErr: `"1e6" is not an integer`},
		{Scenario: "expiry-scan-cost", Args: []string{"--due", "0"}, WantErr: "--due (0)"},
		{Scenario: "expiry-scan-cost", Args: []string{"--sizes", "100000,200000,500000,1000000"}, WantErr: "cannot tell a linear scan"},
		{Scenario: "expiry-scan-cost", Args: []string{"--sizes", "10000,100000,1000000,3000000"}},
	})
}

func TestTTLFalseRemovalDefaultsTo300s(t *testing.T) {
	_, common, err := scentest.Configure(t, "ttl-false-removal")
	if err != nil || common.Duration != 300*time.Second {
		t.Fatalf("duration %v (err %v), want the article's 300s", common.Duration, err)
	}
}

func TestListFlagsRoundTrip(t *testing.T) {
	var s scenarios.SecondsList
	if err := s.Set("1.5, 2,3s,5000ms"); err != nil {
		t.Fatal(err)
	}
	want := scenarios.SecondsList{1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second}
	if !slices.Equal(s, want) || s.String() != "1.5,2,3,5" {
		t.Fatalf("SecondsList = %v (%q)", s, s.String())
	}
	var n scenarios.IntList
	if err := n.Set("10000,1_000_000"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n, scenarios.IntList{10000, 1000000}) || n.String() != "10000,1000000" {
		t.Fatalf("IntList = %v (%q)", n, n.String())
	}
}

// run runs a scenario of the room for real and requires every check in band.
func run(t *testing.T, skip, name string, args ...string) *report.Result {
	t.Helper()
	return scentest.RunReproduced(t, noPorts, skip, name, args...)
}
