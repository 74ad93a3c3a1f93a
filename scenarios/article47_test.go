package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"sdchaos/report"
)

// testPortBase keeps this package's integration runs apart from other
// packages' tests, which go test runs in parallel.
const testPortBase = 9500

// configure parses args for the named scenario as the command does.
func configure(t *testing.T, name string, args ...string) (Config, Common, error) {
	t.Helper()
	spec, ok := Lookup(name)
	if !ok {
		t.Fatalf("scenario %s not registered", name)
	}
	c, cfg, _, err := Parse(spec, args)
	if err != nil {
		return nil, Common{}, err
	}
	return cfg, *c, nil
}

// validationCase is one command line and the error it must give ("" = valid).
type validationCase struct {
	scenario string
	args     []string
	wantErr  string
}

// checkValidation parses and validates each case as the command does and
// requires its error (wrapping ErrUsage) or its absence.
func checkValidation(t *testing.T, tests []validationCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.scenario+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			_, _, err := configure(t, tc.scenario, tc.args...)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			case err != nil && !isUsage(err):
				t.Fatalf("err %v does not wrap ErrUsage", err)
			}
		})
	}
}

func TestArticle47FlagValidation(t *testing.T) {
	checkValidation(t, []validationCase{
		{"cache-on-failure", nil, ""},
		{"cache-on-failure", []string{"--rate", "-5"}, "--rate (-5)"},
		{"cache-on-failure", []string{"--ttl", "2s", "--renew", "3s"}, "renew interval (3s) must be shorter than the ttl (2s)"},
		{"cache-on-failure", []string{"--ttl", "1s"}, "ttl (1s) must be at least 2s"},
		{"cache-on-failure", []string{"--outage-at", "12s"}, "--outage-at (12s)"},
		{"cache-on-failure", []string{"--refresh", "1s", "--refresh-timeout", "2s"}, "--refresh-timeout (2s)"},
		{"cache-on-failure", []string{"--instances", "0"}, "--instances (0)"},
		{"passive-ejection", nil, ""},
		{"passive-ejection", []string{"--crash-at", "10s"}, "--crash-at (10s)"},
		{"passive-ejection", []string{"--eject", "0s"}, "--eject (0s)"},
		{"passive-ejection", []string{"--instances", "1"}, "--instances (1) must be at least 2"},
		{"minority", nil, ""},
		{"minority", []string{"--outage", "30s"}, ""},
		{"minority", []string{"--outage", "30s", "--duration", "12s"}, "--duration (12s) must be at least"},
		{"minority", []string{"--outage", "30s", "--duration", "34s"}, ""},
		{"minority", []string{"--outage", "1s"}, "--outage (1s) must be longer than --op-timeout (2s)"},
	})
}

// runScenario runs a scenario against real etcd processes.
func runScenario(t *testing.T, name string, args ...string) *report.Result {
	t.Helper()
	return runScenarioAt(t, testPortBase, "runs real etcd processes", name, args...)
}

// runScenarioAt runs a scenario with its ports from base, skipped under
// -short (skip says why), and logs its checks.
func runScenarioAt(t *testing.T, base int, skip, name string, args ...string) *report.Result {
	t.Helper()
	if testing.Short() {
		t.Skip(skip)
	}
	cfg, c, err := configure(t, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	c.PortBase = base
	env := NewEnv(c, nil, nil)
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cfg.Run(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	res.Finish()
	for _, ch := range res.Checks {
		t.Logf("%-50s measured %-30s band %-20s pass=%v", ch.Name, ch.Measured, ch.Band, ch.Pass)
	}
	return res
}

func between(t *testing.T, res *report.Result, metric string, lo, hi float64) {
	t.Helper()
	v, ok := res.Metrics[metric]
	if !ok {
		t.Errorf("metric %s missing", metric)
		return
	}
	if v < lo || v > hi {
		t.Errorf("%s = %g, want within [%g, %g]", metric, v, lo, hi)
	}
}

func TestCacheOnFailureReproduces(t *testing.T) {
	res := runScenario(t, "cache-on-failure")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "outage_at_s", 1.99, 2.1)
	between(t, res, "keep.ok", 400, 400)
	between(t, res, "clear.first_fail_s", 2, 3)
	between(t, res, "clear.fail", 240, 320) // 0/40 from s3 or s4, part of the outage second
}

func TestPassiveEjectionReproducesWithOtherParameters(t *testing.T) {
	// Bands follow the parameters: 5 s at 60 req/s, crash at 2 s: 60 × 3 / 3 = 60 failures.
	res := runScenario(t, "passive-ejection", "--duration", "5s", "--rate", "60", "--outage-at", "500ms", "--crash-at", "2s")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "none.fail", 45, 75)
	between(t, res, "eject.fail", 1, 2)
	between(t, res, "none.ok", 300-75, 300-45)
}

func TestMinorityReproduces(t *testing.T) {
	res := runScenario(t, "minority", "--outage", "4s", "--duration", "8s")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "lin_read.ok", 0, 0)
	between(t, res, "ser_read.ok", 1, 1)
	between(t, res, "ser_read.keys", 3, 3)
	between(t, res, "after.present", 3, 3)
	between(t, res, "after.ttl_min_s", 15, 21)
}
