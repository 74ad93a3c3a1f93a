package nacosincident

import (
	"testing"
	"time"

	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// restartArgs are variant restart's flags.
var restartArgs = []string{"--loss", "40s", "--restart-at", "7s"}

// emptyStart are the callers restarted without their disk cache.
var emptyStart = []string{"spring", "plain", "go-java-default"}

// restart40s is the shape the restart variant should show: the 40 s loss
// of loss40s, six callers killed at 7 s and calling again (Java 15 s
// later, Go 9.5 s: their start-up connection attempts), those without
// their disk cache failing every call until their client connects after
// the heal, those with it failing nothing (plain-cache's calls each
// waiting ~450 ms for the subscribe that fails first).
func restart40s() synthIncident {
	x := loss40s()
	x.restart = &synthRestart{killed: 7 * sec, first: 22 * sec, firstOf: map[string]time.Duration{"go-sdk": 16500 * time.Millisecond,
		"go-java-default": 16500 * time.Millisecond}}
	for _, c := range emptyStart {
		x.fail = either(x.fail, between(c, 7*sec, 46*sec))
	}
	return x
}

// TestNacosIncidentJudgeRestart: the article's first fix holds on the real
// clients' rules: cached callers serve, the others fail until the heal;
// every other outcome breaks the check that names it.
func TestNacosIncidentJudgeRestart(t *testing.T) {
	res := judgeIncident(t, restart40s(), restartArgs...)
	// plain-protect's one raw read after the heal fails, where the article's
	// protection failed none: differs, with the race named.
	scentest.WantVerdict(t, res, report.Differs, "plain-protect: failures after the heal (the server had removed instances)")
	scentest.WantVerdicts(t, res, map[string]report.Verdict{
		"spring-cache: failed share of its calls after its restart, while the server was unreachable": report.Reproduced,
		"spring: failed share of its calls after its restart, while the server was unreachable":       report.Reproduced,
		"go-sdk: failed share of its calls after its restart, while the server was unreachable":       report.Reproduced,
		"plain: failures after the heal (it restarted with no list)":                                  report.Reproduced,
		"restarted Java callers: time from the kill to the first call (the quickest)":                 report.Reproduced,
		"restarted callers: their listener's subscribe at start failed":                               report.Reproduced,
		"plain-cache: median duration of its calls after its restart, while unreachable":              report.Reproduced,
		"spring-fallback: failures after the heal (the server had removed instances)":                 report.Reproduced,
	})
	for _, g := range res.Gates {
		if !g.OK {
			t.Errorf("gate %q failed: %s", g.Name, g.Measured)
		}
	}
	tests := []struct {
		name  string
		edit  func(*synthIncident)
		check string
	}{
		{"the cache does not help spring", func(x *synthIncident) { x.fail = either(x.fail, between("spring-cache", 22*sec, 45*sec)) },
			"spring-cache: failed share of its calls after its restart, while the server was unreachable"},
		{"go-sdk fails one call from its cache", func(x *synthIncident) { x.fail = either(x.fail, between("go-sdk", 30*sec, 30100*time.Millisecond)) },
			"go-sdk: failed share of its calls after its restart, while the server was unreachable"},
		{"plain serves without a cache", func(x *synthIncident) {
			f := x.fail
			x.fail = func(c string, at time.Duration) bool {
				return f(c, at) && (c != "plain" || at < 30*sec || at >= 45*sec)
			}
		}, "plain: failed share of its calls after its restart, while the server was unreachable"},
		{"go-java-default fails long after the heal", func(x *synthIncident) { x.fail = either(x.fail, between("go-java-default", 45*sec, 60*sec)) },
			"go-java-default: failures after the heal (it restarted with no list)"},
		{"a Java client built in 5 s", func(x *synthIncident) { x.restart.firstOf["plain"] = 12 * sec },
			"restarted Java callers: time from the kill to the first call (the quickest)"},
		{"a Go client built in 3 s", func(x *synthIncident) { x.restart.firstOf["go-sdk"] = 10 * sec },
			"restarted Go callers: time from the kill to the first call (the quickest)"},
		{"a subscribe answered while unreachable", func(x *synthIncident) { x.restart.subscribed = []string{"go-sdk"} },
			"restarted callers: their listener's subscribe at start failed"},
		{"plain-cache reads without trying to subscribe", func(x *synthIncident) { x.restart.fastReads = true },
			"plain-cache: median duration of its calls after its restart, while unreachable"},
		{"a restarted caller fails before its kill", func(x *synthIncident) { x.fail = either(x.fail, between("plain-cache", 6*sec, 6500*time.Millisecond)) },
			"plain-cache: failures during the loss, before its restart"},
		{"the fallback fails while others restart", func(x *synthIncident) { x.fail = either(x.fail, between("spring-fallback", 30*sec, 31*sec)) },
			"spring-fallback: failures during the loss"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := restart40s()
			x.restart.firstOf = map[string]time.Duration{"go-sdk": 16500 * time.Millisecond, "go-java-default": 16500 * time.Millisecond}
			tc.edit(&x)
			scentest.WantVerdict(t, judgeIncident(t, x, restartArgs...), report.Outside, tc.check)
		})
	}
}

// TestNacosIncidentRestartGates: a restart that cannot be judged is
// invalid: a caller that called again only after the heal, one that
// stopped calling, and a restart the run did not record.
func TestNacosIncidentRestartGates(t *testing.T) {
	tests := []struct {
		name string
		edit func(*synthIncident)
		cut  func(*history.History)
		gate string
	}{
		{"called again after the heal", func(x *synthIncident) { x.restart.firstOf["plain-cache"] = 46 * sec }, nil,
			"every restarted caller called again while the server was unreachable"},
		{"too few calls after the restart", nil, func(h *history.History) { h.Ops = within(h.Ops, "go-sdk", 0, 50*sec) },
			"every caller made its calls at --rate"},
		{"a restarted caller ended early", func(x *synthIncident) { x.errs = map[string]string{"plain": "plain: signal: killed"} }, nil,
			"every caller ran to the end"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := restart40s()
			if tc.edit != nil {
				tc.edit(&x)
			}
			h := x.history(t)
			if tc.cut != nil {
				tc.cut(h)
			}
			res := scentest.Judge(scentest.MustConfigure(t, "nacos-incident", restartArgs...), h)
			if res.Verdict != report.Invalid || gateOK(res.Gates, tc.gate) {
				t.Errorf("verdict %s, gate %q ok: %v", res.Verdict, tc.gate, gateOK(res.Gates, tc.gate))
			}
		})
	}
	t.Run("no restart recorded", func(t *testing.T) {
		h := loss40s().history(t)
		if res := scentest.Judge(scentest.MustConfigure(t, "nacos-incident", restartArgs...), h); res.Verdict != report.Invalid {
			t.Errorf("verdict %s, want invalid", res.Verdict)
		}
	})
}

// TestNacosIncidentRestartValidation: --restart-at's limits.
func TestNacosIncidentRestartValidation(t *testing.T) {
	scentest.CheckValidation(t, []scentest.ValidationCase{
		{Scenario: "nacos-incident", Args: restartArgs},
		{Scenario: "nacos-incident", Args: []string{"--restart-at", "10s"}, WantErr: "--restart-at (10s) must be within"},
		{Scenario: "nacos-incident", Args: []string{"--loss", "40s", "--restart-at", "4s"}, WantErr: "--restart-at (4s) must be within"},
		{Scenario: "nacos-incident", Args: []string{"--loss", "40s", "--restart-at", "-1s"}, WantErr: "--restart-at (-1s) must not be negative"},
		{Scenario: "nacos-incident", Args: []string{"--fault", "empty", "--loss", "40s", "--restart-at", "7s"}, WantErr: "needs --fault blackhole"},
	})
}

// TestNacosIncidentRestartPlot draws the restart's figure: the new
// callers in the panels of the callers that counted as they did, the
// restarted callers' labels and the restart's mark.
func TestNacosIncidentRestartPlot(t *testing.T) {
	s := scentest.MustConfigure(t, "nacos-incident", restartArgs...).(*nacosIncident)
	plots, err := s.Plots(restart40s().history(t))
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, plots), "per-second")
	d.Has(t, "identical every second: spring-cache, plain-cache", "identical every second: spring, plain",
		"go-java-default: nacos-sdk-go in Java's defaults (an empty list replaces its cache) — restarted, no cache at start",
		string(history.RestartCallers))
}
