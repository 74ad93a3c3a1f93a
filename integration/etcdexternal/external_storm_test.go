package etcdexternal

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sdchaos/internal/cmdrun"

	"sdchaos/fault"
	"sdchaos/report"
)

// stormArgs is a short storm (1000 registrants, ttl 3 s) that the tests
// below run in several worlds.
var stormArgs = []string{"reregistration-storm", "--instances", "1000", "--ttl", "3s", "--renew", "1s", "--revoke-rate", "1000",
	"--duration", "20s", "--quiet"}

// TestExternalStorm: the re-registration storm against etcd's own binary
// (three plain processes the harness did not start) with --endpoints. The
// registrants' keys are listed in the run's namespace, the registry's side
// is read over the members' /metrics and judged, the verdicts are those of
// the same storm on the harness's own members (the registry's error
// difference excepted: noise at this size, as in
// TestShardedStormMatchesOneProcess), and nothing is left behind: no key,
// no lease, no port.
func TestExternalStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etcd and runs real processes")
	}
	bin := buildUpstreamEtcd(t) // before the lock: a build is not timed
	lockPackage(t)
	l := startLocalEtcd(t, bin, 13100, "")
	embedded := oneProcessStorm(t)
	ext := runValidStorm(t, append(stormArgs, "--port-base", "13200", "--endpoints", strings.Join(l.ClientURLs, ",")))
	compareStorms(t, embedded, ext, "embedded", "external")
	for _, k := range []string{"immediate.registry.requests", "jitter.registry.requests", "immediate.registry.max_sample_gap_ms",
		"jitter.registry.max_sample_gap_ms", "immediate.cost.registry_cpu_s", "jitter.cost.harness_cpu_share"} {
		t.Logf("%s: embedded %s, external %s", k, fmtMetric(embedded.Metrics[k]), fmtMetric(ext.Metrics[k]))
		if ext.Metrics[k] <= 0 {
			t.Errorf("%s = %g on the external cluster: the registry's side was not read", k, ext.Metrics[k])
		}
	}
	checkNothingLeft(t, l, "the storm", 13200)
}

// TestExternalPanicLeavesNothing makes a run panic (the test-only
// failpoints) on a cluster the harness did not start, in the plan's own
// goroutine, in a timeline step once its fault (the nemesis's SIGKILL of
// members) took effect, and in a traffic goroutine: each run must end with
// one line naming the phase (exit 4, no Go stack trace), and leave no key,
// no lease, no member down and no port taken.
func TestExternalPanicLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etcd and runs real processes")
	}
	bin := buildUpstreamEtcd(t) // before the lock: a build is not timed
	lockPackage(t)
	l := startLocalEtcd(t, bin, 13100, "")
	nem := mustAbs(t, "../../examples/nemesis/local-pidfile.json")
	tests := []struct {
		failpoint, phase string
		args             []string
	}{
		{"storm-registered", "panic in the plan", []string{"reregistration-storm", "--instances", "400"}},
		{"timeline-injected", "panic in timeline step", []string{"cache-on-failure", "--nemesis", nem}},
		{"traffic", "panic in traffic source", []string{"passive-ejection", "--nemesis", nem}},
	}
	for _, tc := range tests {
		t.Run(tc.failpoint, func(t *testing.T) {
			exe := cmdrun.Exe
			cmd := exec.Command(exe, append(tc.args, "--endpoints", strings.Join(l.ClientURLs, ","), "--port-base", "13200")...)
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "SDCHAOS_LOCAL_DIR="+l.Dir,
				"SDCHAOS_PEER_PROXY="+l.Control, fault.FailpointEnv+"="+tc.failpoint)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			last := lines[len(lines)-1]
			if code := cmd.ProcessState.ExitCode(); code != cmdrun.ExitEnvironment || !strings.HasPrefix(last, "experiments: ") ||
				!strings.Contains(last, tc.phase) || !strings.Contains(last, "failpoint "+tc.failpoint) {
				t.Errorf("exit %d, last line %q; want %d and one line naming %q", code, last, cmdrun.ExitEnvironment, tc.phase)
			}
			if strings.Contains(stderr.String(), "goroutine ") {
				t.Errorf("a Go stack trace on stderr:\n%s", stderr.String())
			}
			checkNothingLeft(t, l, tc.failpoint, 13200)
		})
	}
}

// runStormTLS runs a 200-registrant storm over TLS with etcd auth (the
// flags in creds) and wants every registrant listed and back, the
// registry's side read over TLS, and nothing left.
func runStormTLS(t *testing.T, l *localEtcd, portBase int, creds ...string) {
	t.Helper()
	args := append([]string{"reregistration-storm", "--instances", "200", "--ttl", "3s", "--renew", "1s", "--revoke-rate", "1000",
		"--duration", "20s", "--quiet", "--retry-invalid", "2", "--port-base", strconv.Itoa(portBase),
		"--endpoints", strings.Join(l.ClientURLs, ",")}, creds...)
	res, code := runStormProcess(t, args)
	t.Logf("storm over TLS with auth: exit %d, %s", code, report.VerdictLine(res))
	for _, k := range []string{"immediate.listed_at_loss", "jitter.listed_at_loss", "immediate.registered", "jitter.registered"} {
		if res.Metrics[k] != 200 {
			t.Errorf("%s = %g, want 200", k, res.Metrics[k])
		}
	}
	for _, k := range []string{"immediate.registry.requests", "jitter.registry.requests"} {
		if res.Metrics[k] <= 0 {
			t.Errorf("%s = %g: the members' /metrics were not read over TLS", k, res.Metrics[k])
		}
	}
	checkNothingLeft(t, l, "the storm over TLS", portBase)
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
