package article47

import (
	"os"
	"testing"

	"sdchaos/childproc"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// testPortBase keeps this package's runs apart from other packages' tests.
const testPortBase = 9500

func TestArticle47FlagValidation(t *testing.T) {
	scentest.CheckValidation(t, []scentest.ValidationCase{
		{Scenario: "cache-on-failure"},
		{Scenario: "cache-on-failure", Args: []string{"--rate", "-5"}, WantErr: "--rate (-5)"},
		{Scenario: "cache-on-failure", Args: []string{"--ttl", "2s", "--renew", "3s"}, WantErr: "renew interval (3s) must be shorter than the ttl (2s)"},
		{Scenario: "cache-on-failure", Args: []string{"--ttl", "1s"}, WantErr: "ttl (1s) must be at least 2s"},
		{Scenario: "cache-on-failure", Args: []string{"--outage-at", "12s"}, WantErr: "--outage-at (12s)"},
		{Scenario: "cache-on-failure", Args: []string{"--refresh", "1s", "--refresh-timeout", "2s"}, WantErr: "--refresh-timeout (2s)"},
		{Scenario: "cache-on-failure", Args: []string{"--instances", "0"}, WantErr: "--instances (0)"},
		{Scenario: "cache-on-failure", Args: []string{"--refresh-fail-fast"}},
		{Scenario: "passive-ejection"},
		{Scenario: "passive-ejection", Args: []string{"--crash-at", "10s"}, WantErr: "--crash-at (10s)"},
		{Scenario: "passive-ejection", Args: []string{"--eject", "0s"}, WantErr: "--eject (0s)"},
		{Scenario: "passive-ejection", Args: []string{"--instances", "1"}, WantErr: "--instances (1) must be at least 2"},
		{Scenario: "minority"},
		{Scenario: "minority", Args: []string{"--outage", "30s"}},
		{Scenario: "minority", Args: []string{"--outage", "30s", "--duration", "12s"}, WantErr: "--duration (12s) must be at least"},
		{Scenario: "minority", Args: []string{"--outage", "30s", "--duration", "34s"}},
		{Scenario: "minority", Args: []string{"--outage", "1s"}, WantErr: "--outage (1s) must be longer than --op-timeout (2s)"},
	})
}

func run(t *testing.T, name string, args ...string) *report.Result {
	t.Helper()
	return scentest.RunReproduced(t, testPortBase, "runs real etcd processes", name, args...)
}

func TestCacheOnFailureDiffersFromTheArticleWithGRPC(t *testing.T) {
	res := run(t, "cache-on-failure")
	scentest.Between(t, res, "outage_at_s", 1.99, 2.1)
	scentest.Between(t, res, "keep.ok", 400, 400)
	scentest.Between(t, res, "clear.first_fail_after_outage_s", 0.45, 1.575)
	scentest.WantVerdicts(t, res, map[string]report.Verdict{"clear: first failure after the outage": report.Differs})
}

func TestCacheOnFailureReproducesTheArticleWhenRefreshFailsFast(t *testing.T) {
	res := run(t, "cache-on-failure", "--refresh-fail-fast")
	scentest.Between(t, res, "clear.first_fail_after_outage_s", 0, 1.075)
	scentest.WantVerdicts(t, res, map[string]report.Verdict{"clear: first failure after the outage": report.Reproduced})
	if res.Verdict != report.Reproduced {
		t.Errorf("verdict %s, want reproduced", res.Verdict)
	}
}

func TestPassiveEjectionReproducesWithOtherParameters(t *testing.T) {
	// Bands follow the parameters: 5 s at 60 req/s, crash at 2 s: 60 × 3 / 3 = 60 failures.
	res := run(t, "passive-ejection", "--duration", "5s", "--rate", "60", "--outage-at", "500ms", "--crash-at", "2s")
	scentest.Between(t, res, "none.fail", 57, 63)
	scentest.Between(t, res, "eject.fail", 1, 2)
}

func TestMinorityReproduces(t *testing.T) {
	res := run(t, "minority", "--outage", "4s", "--duration", "8s")
	scentest.Between(t, res, "lin_read.ok", 0, 0)
	scentest.Between(t, res, "ser_read.ok", 1, 1)
	scentest.Between(t, res, "ser_read.keys", 3, 3)
	scentest.Between(t, res, "after.present", 3, 3)
	scentest.Between(t, res, "after.ttl_min_s", 17, 22)
	// Linearizability of the key-value traffic (issue 12): 3 members × 3 ops/s for 8 s.
	scentest.Between(t, res, "kv.lin.linearizable", 1, 1)
	scentest.Between(t, res, "kv.lin.checked", 10, 80)
	scentest.Between(t, res, "kv.lost_puts", 0, 0)
}
