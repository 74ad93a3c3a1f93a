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

// TestRegistryUnreachableThroughTheSeam runs the built-in
// registry-unreachable, shortened to 16 s (the clients' DNS path held from
// 2 s for 8 s), on the dns registry through the one run path (rig.Run via
// the scenario's Config) and judges it with the neutral judge by this
// world's rules: every check is judged (none "not judged" for a caller),
// and the verdict is reproduced or differs, never outside or invalid.
func TestRegistryUnreachableThroughTheSeam(t *testing.T) {
	needReal(t)
	x, _, err := anyregistry.Named("registry-unreachable")
	if err != nil {
		t.Fatal(err)
	}
	x.Timeline[0].At, x.Timeline[0].For = experiment.Duration(2*time.Second), experiment.Duration(8*time.Second)
	env := rig.NewEnv(1, 16*time.Second, seamPortBase, false, nil, nil)
	env.Quiet = true
	defer env.Close()
	c := &anyregistry.Config{X: x, Registry: string(Name)}
	h, err := c.Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	res := c.Judge(h)
	for _, ck := range res.Checks {
		t.Logf("%-75s %-22s %-22s %s", ck.Name, ck.MeasuredText, ck.Band, ck.Verdict)
	}
	for _, s := range res.Conclusion {
		t.Log(s)
	}
	if len(res.Checks) < 10 {
		t.Errorf("%d checks, want every caller's (≥ 10): a rule is missing", len(res.Checks))
	}
	switch v := report.RunVerdict(res.Checks); v {
	case report.Reproduced, report.Differs:
	default:
		t.Errorf("verdict %s, want reproduced or differs", v)
	}
}
