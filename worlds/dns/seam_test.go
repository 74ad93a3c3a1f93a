package dns

import (
	"context"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/scenarios/anyregistry"
)

// seamPortBase keeps the seam test's ports apart from the other tests'.
const seamPortBase = 21800

// seamAttempts is how many runs the seam test makes when a run is
// invalid (a validity gate failed: the shared machine starved the
// harness), as the command retries an invalid run.
const seamAttempts = 2

// TestRegistryUnreachableThroughTheSeam runs the built-in
// registry-unreachable, shortened to 16 s (the clients' DNS path held from
// 2 s for 8 s), on the dns registry through the one run path (rig.Run via
// the scenario's Config) and judges it with the neutral judge by this
// world's rules: every caller's checks are judged, and the verdict of a
// valid run (every gate held) is reproduced or differs, never outside.
func TestRegistryUnreachableThroughTheSeam(t *testing.T) {
	needReal(t)
	for attempt := 1; attempt <= seamAttempts; attempt++ {
		res, gates := runSeam(t)
		if !report.GatesOK(gates) {
			for _, g := range gates {
				t.Logf("run %d: gate %q: %s (ok %v)", attempt, g.Name, g.Measured, g.OK)
			}
			continue
		}
		checkSeam(t, res)
		return
	}
	t.Errorf("every one of %d runs was invalid (a gate failed)", seamAttempts)
}

// runSeam makes one run and returns its judged result and its gates.
func runSeam(t *testing.T) (*report.Result, []report.Gate) {
	t.Helper()
	x, _, err := anyregistry.Named("registry-unreachable")
	if err != nil {
		t.Fatal(err)
	}
	x.Timeline[0].At, x.Timeline[0].For = experiment.Duration(2*time.Second), experiment.Duration(8*time.Second)
	return runExperiment(t, x, 16*time.Second)
}

// runExperiment runs x for d on the dns registry through the seam and returns its judged
// result and its gates.
func runExperiment(t *testing.T, x experiment.Experiment, d time.Duration) (*report.Result, []report.Gate) {
	t.Helper()
	env := rig.NewEnv(1, d, seamPortBase, false, nil, nil)
	env.Quiet = true
	defer env.Close()
	c := &anyregistry.Config{X: x, Registry: string(Name)}
	h, err := c.Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	return c.Judge(h), report.Gates(h)
}

// checkSeam checks a valid run's result.
func checkSeam(t *testing.T, res *report.Result) {
	t.Helper()
	for _, ck := range res.Checks {
		t.Logf("%-75s %-22s %-22s %s", ck.Name, ck.MeasuredText, ck.Band, ck.Verdict)
		if ck.Verdict != report.Reproduced && ck.Verdict != report.Differs {
			t.Errorf("%s: %s, band %s: %s (%s)", ck.Name, ck.MeasuredText, ck.Band, ck.Verdict, ck.Basis)
		}
	}
	for _, s := range res.Conclusion {
		t.Log(s)
	}
	if len(res.Checks) < 12 {
		t.Errorf("%d checks, want every caller's (12): a rule is missing", len(res.Checks))
	}
	switch v := report.RunVerdict(res.Checks); v {
	case report.Reproduced, report.Differs:
	default:
		t.Errorf("verdict %s, want reproduced or differs", v)
	}
}
