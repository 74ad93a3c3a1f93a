//go:build sdchaos_unconverted

package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"sdchaos/report"
)

// parseScenario binds, parses and validates a scenario's flags the way the
// command does.
func parseScenario(name string, args ...string) (Config, Common, error) {
	spec, ok := Lookup(name)
	if !ok {
		return nil, Common{}, errors.New("no scenario " + name)
	}
	common, cfg, _, err := Parse(spec, args)
	if err != nil {
		return nil, Common{}, err
	}
	return cfg, *common, nil
}

// failedNames returns the names of the checks outside their bands.
func failedNames(res *report.Result) []string {
	var out []string
	for _, f := range res.Failed() {
		out = append(out, f.Name)
	}
	return out
}

func TestArticle40FlagValidation(t *testing.T) {
	cases := []struct {
		scenario string
		args     []string
		want     string // in the message; "" means valid
	}{
		{"expiry-latency", nil, ""},
		{"expiry-latency", []string{"--ttl", "0s"}, "--ttl (0s)"},
		{"expiry-latency", []string{"--ttl", "-2s"}, "--ttl (-2s)"},
		{"expiry-latency", []string{"--runs", "1"}, "--runs (1)"},
		{"expiry-latency", []string{"--scan-slow", "0s"}, "--scan-slow (0s)"},
		{"expiry-latency", []string{"--scan-fast", "-1ms"}, "--scan-fast (-1ms)"},
		{"ttl-false-removal", nil, ""},
		{"ttl-false-removal", []string{"--loss", "1"}, "--loss (1)"},
		{"ttl-false-removal", []string{"--loss", "1.5"}, "--loss (1.5)"},
		{"ttl-false-removal", []string{"--loss", "-0.1"}, "--loss (-0.1)"},
		{"ttl-false-removal", []string{"--loss", "0"}, ""},
		{"ttl-false-removal", []string{"--ttls", ""}, "--ttls is empty"},
		{"ttl-false-removal", []string{"--ttls", "2,0"}, "ttl 0 s must be positive"},
		{"ttl-false-removal", []string{"--ttls", "2,2s"}, "lists 2 s twice"},
		{"ttl-false-removal", []string{"--ttls", "two"}, `"two" is neither seconds nor a duration`},
		{"ttl-false-removal", []string{"--instances", "0"}, "--instances (0)"},
		{"ttl-false-removal", []string{"--heartbeat", "0s"}, "--heartbeat (0s)"},
		{"ttl-false-removal", []string{"--duration", "500ms"}, "--duration (500ms) is shorter"},
		{"expiry-scan-cost", nil, ""},
		{"expiry-scan-cost", []string{"--sizes", ""}, "--sizes is empty"},
		{"expiry-scan-cost", []string{"--sizes", "1000,50"}, "--sizes: 50 must be above --due (100)"},
		{"expiry-scan-cost", []string{"--sizes", "1e6"}, `"1e6" is not an integer`},
		{"expiry-scan-cost", []string{"--due", "0"}, "--due (0)"},
	}
	for _, c := range cases {
		t.Run(c.scenario+" "+strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := parseScenario(c.scenario, c.args...)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("valid flags rejected: %v", err)
			case c.want != "" && !errors.Is(err, ErrUsage):
				t.Fatalf("error %v, want a usage error (exit 2) mentioning %q", err, c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("message %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestTTLFalseRemovalDefaultsTo300s(t *testing.T) {
	_, common, err := parseScenario("ttl-false-removal")
	if err != nil || common.Duration != 300*time.Second {
		t.Fatalf("duration %v (err %v), want the article's 300s", common.Duration, err)
	}
}

func TestListFlagsRoundTrip(t *testing.T) {
	var s SecondsList
	if err := s.Set("1.5, 2,3s,5000ms"); err != nil {
		t.Fatal(err)
	}
	want := SecondsList{1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second}
	if !slices.Equal(s, want) || s.String() != "1.5,2,3,5" {
		t.Fatalf("SecondsList = %v (%q)", s, s.String())
	}
	var n IntList
	if err := n.Set("10000,1_000_000"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n, IntList{10000, 1000000}) || n.String() != "10000,1000000" {
		t.Fatalf("IntList = %v (%q)", n, n.String())
	}
}
