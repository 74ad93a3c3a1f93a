// Package scentest holds the helpers the scenario rooms' tests share:
// parsing a command line as the command does, running a scenario for real
// (one at a time across test packages, so timing checks are not judged on a
// machine busy with another scenario), synthetic histories, and assertions
// on results and verdicts.
package scentest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/internal/machinelock"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// Configure parses args for the named scenario as the command does.
func Configure(t testing.TB, name string, args ...string) (scenarios.Config, scenarios.Common, error) {
	t.Helper()
	spec, ok := scenarios.Lookup(name)
	if !ok {
		t.Fatalf("scenario %s not registered", name)
	}
	c, cfg, _, err := scenarios.Parse(spec, args)
	if err != nil {
		return nil, scenarios.Common{}, err
	}
	return cfg, *c, nil
}

// MustConfigure parses args and fails the test on an error.
func MustConfigure(t *testing.T, name string, args ...string) scenarios.Config {
	t.Helper()
	cfg, _, err := Configure(t, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ValidationCase is one command line and the error it must give ("" = valid).
type ValidationCase struct {
	Scenario string
	Args     []string
	WantErr  string
}

// CheckValidation parses and validates each case as the command does and
// requires its error (wrapping ErrUsage) or its absence.
func CheckValidation(t *testing.T, tests []ValidationCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.Scenario+" "+strings.Join(tc.Args, " "), func(t *testing.T) {
			_, _, err := Configure(t, tc.Scenario, tc.Args...)
			switch {
			case tc.WantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.WantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.WantErr)):
				t.Fatalf("err = %v, want one containing %q", err, tc.WantErr)
			case err != nil && !errors.Is(err, scenarios.ErrUsage):
				t.Fatalf("err %v does not wrap ErrUsage", err)
			}
		})
	}
}

// Run runs a scenario for real with its ports from base (skipped under
// -short; skip says why), judges it and logs its checks. Only one such run
// happens at a time on the machine (a lock file), whichever package runs it.
func Run(t testing.TB, base int, skip, name string, args ...string) *report.Result {
	t.Helper()
	if testing.Short() {
		t.Skip(skip)
	}
	cfg, c, err := Configure(t, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	unlock := machinelock.Take(t)
	defer unlock()
	c.PortBase = base
	env := scenarios.NewEnv(c, nil, nil)
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	h, err := cfg.Run(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	res := JudgeRun(cfg, h)
	res.Scenario, res.Meta = name, scenarios.RunMeta(env, start)
	t.Logf("%s ran in %.1f s: %s", name, time.Since(start).Seconds(), report.VerdictLine(res))
	for _, ch := range res.Checks {
		t.Logf("%-55s measured %-28s band %-22s %s", ch.Name, ch.MeasuredText, ch.Band, ch.Verdict)
	}
	return res
}

// invalidRetries is how many runs RunReproduced tries before it skips a
// test whose every run was invalid.
const invalidRetries = 3

// RunReproduced runs a scenario as Run does and requires it reproduced,
// every difference from the article explained. An invalid run (a validity
// gate failed, or a check could not judge: the machine starved the
// harness, the registry was not in the state the plan assumes) judges
// nothing: it is run again, and after invalidRetries invalid runs the test
// is skipped, saying why — never passed or failed on it.
func RunReproduced(t *testing.T, base int, skip, name string, args ...string) *report.Result {
	t.Helper()
	return RunReproducedThen(t, base, skip, name, nil, args...)
}

// RunReproducedThen is RunReproduced that first hands every run's result,
// an invalid one too, to each (when not nil): checks that hold whatever the
// run's validity, such as what its metadata names.
func RunReproducedThen(t *testing.T, base int, skip, name string, each func(*report.Result), args ...string) *report.Result {
	t.Helper()
	var res *report.Result
	for range invalidRetries {
		res = Run(t, base, skip, name, args...)
		if each != nil {
			each(res)
		}
		if res.Verdict != report.Invalid {
			NoUnexplainedDifference(t, res)
			if !res.Reproduced {
				t.Errorf("not reproduced: %s", Names(res))
			}
			return res
		}
		t.Logf("invalid run: %s", InvalidWhy(res))
	}
	t.Skipf("%d invalid runs on this machine: %s", invalidRetries, InvalidWhy(res))
	return nil
}

// InvalidWhy says why a result is invalid: its failed gates and the causes
// of its checks that could not judge.
func InvalidWhy(res *report.Result) string {
	var why []string
	for _, g := range res.Gates {
		if !g.OK {
			why = append(why, fmt.Sprintf("gate %q: %s (limit %s)", g.Name, g.Measured, g.Limit))
		}
	}
	for _, c := range res.Checks {
		if c.Verdict == report.Invalid {
			why = append(why, c.Name+": "+c.Cause)
		}
	}
	return strings.Join(why, "; ")
}

// Judge judges h with cfg and finishes the result.
func Judge(cfg scenarios.Config, h *history.History) *report.Result {
	res := cfg.Judge(h)
	res.Finish()
	return res
}

// JudgeRun judges a history recorded by a real run as the command does:
// with the generic validity gates (every fault took effect, the rig was
// ready, the callers kept their schedule), so a run on a starved machine is
// invalid — run again by RunReproduced — never judged outside.
func JudgeRun(cfg scenarios.Config, h *history.History) *report.Result {
	res := cfg.Judge(h)
	res.Gates = append(res.Gates, report.Gates(h)...)
	res.Finish()
	return res
}

// Between requires metric to lie within [lo, hi].
func Between(t *testing.T, res *report.Result, metric string, lo, hi float64) {
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

// Verdict returns the verdict of the named check ("" if there is none).
func Verdict(res *report.Result, check string) report.Verdict {
	for _, c := range res.Checks {
		if c.Name == check {
			return c.Verdict
		}
	}
	return ""
}

// WantVerdicts requires each named check to have its verdict.
func WantVerdicts(t *testing.T, res *report.Result, want map[string]report.Verdict) {
	t.Helper()
	for name, v := range want {
		if got := Verdict(res, name); got != v {
			t.Errorf("check %q: verdict %q, want %q (checks: %s)", name, got, v, Names(res))
		}
	}
}

// WantAgreement requires each named check, where the run's phase decides
// whether the measurement lands near the article's figure (a refresh or
// fetch tick after a fault), to say so: reproduced when its measurement
// lies in the check's agreement interval, differs otherwise (never outside:
// the measurement must be in its band, which the test checks beside).
func WantAgreement(t *testing.T, res *report.Result, names ...string) {
	t.Helper()
	for _, name := range names {
		found := false
		for _, c := range res.Checks {
			if c.Name != name {
				continue
			}
			found = true
			if c.AgreeLo == nil || c.AgreeHi == nil {
				t.Errorf("check %q has no agreement interval", name)
				continue
			}
			v := float64(c.Measured)
			want := report.Differs
			if v >= *c.AgreeLo && v <= *c.AgreeHi {
				want = report.Reproduced
			}
			if c.Verdict != want {
				t.Errorf("check %q: measured %g, agreement %g–%g: verdict %q, want %q", name, v, *c.AgreeLo, *c.AgreeHi, c.Verdict, want)
			}
		}
		if !found {
			t.Errorf("no check %q (checks: %s)", name, Names(res))
		}
	}
}

// Names lists a result's checks with their verdicts, for messages.
func Names(res *report.Result) string {
	var parts []string
	for _, c := range res.Checks {
		parts = append(parts, c.Name+"="+string(c.Verdict))
	}
	return strings.Join(parts, ", ")
}

// NoUnexplainedDifference fails when a check differs from the article
// without a stated cause.
func NoUnexplainedDifference(t *testing.T, res *report.Result) {
	t.Helper()
	for _, c := range res.Checks {
		if c.Verdict == report.Differs && (c.Cause == "" || c.Cause == "no cause given") {
			t.Errorf("check %q differs from the article without a cause", c.Name)
		}
	}
}

// Synth builds ops for each caller at rate per second for d; fail(caller,
// at) decides each outcome.
func Synth(callers []string, rate int, d time.Duration, fail func(caller string, at time.Duration) bool) []history.Op {
	var ops []history.Op
	step := time.Second / time.Duration(rate)
	for _, c := range callers {
		for at := time.Duration(0); at < d; at += step {
			o := history.OK
			if fail(c, at) {
				o = history.Fail
			}
			ops = append(ops, history.Op{Caller: c, Kind: history.OpCall, Scheduled: at, Start: at, End: at + time.Millisecond, Outcome: o})
		}
	}
	return ops
}
