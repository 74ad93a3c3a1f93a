package dns

import (
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/scenarios/anyregistry"
)

// TestKilledDNSServersThroughTheSeam runs registry-unreachable with how: kill on the dns
// registry (every CoreDNS server SIGKILLed at 2 s, started again with empty caches at 8 s; a
// 42 s run, so that the recovery after the restart's allowance is judged too): Go's resolver
// fails every lookup through either server while they are down, gRPC's dns resolver none, and
// every check is reproduced or differs, none outside.
func TestKilledDNSServersThroughTheSeam(t *testing.T) {
	needReal(t)
	x, _, err := anyregistry.Named("registry-unreachable")
	if err != nil {
		t.Fatal(err)
	}
	const d = 42 * time.Second
	x.Duration = experiment.Duration(d)
	x.Timeline[0].At, x.Timeline[0].For, x.Timeline[0].How = experiment.Duration(2*time.Second), experiment.Duration(6*time.Second), experiment.Kill
	for attempt := 1; attempt <= seamAttempts; attempt++ {
		res, gates := runExperiment(t, x, d)
		if !report.GatesOK(gates) {
			t.Logf("run %d: a gate failed: %v", attempt, gates)
			continue
		}
		checkSeam(t, res)
		for _, name := range []string{"go-resolver: failures after the registry returned", "go-resolver-stale: failures after the registry returned"} {
			if !hasCheck(res, name) {
				t.Errorf("no check %q: the recovery after the restart was not judged", name)
			}
		}
		return
	}
	t.Errorf("every one of %d runs was invalid (a gate failed)", seamAttempts)
}

// hasCheck reports whether res has a check whose name starts with prefix.
func hasCheck(res *report.Result, prefix string) bool {
	for _, c := range res.Checks {
		if strings.HasPrefix(c.Name, prefix) {
			return true
		}
	}
	return false
}
