package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// runScenario runs one scenario from its command line and renders it.
func runScenario(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	spec, err := lookup(name)
	if err != nil {
		return err
	}
	return runNamed(ctx, spec, spec.Name, args, stdout, stderr)
}

// runNamed runs spec from its command line, its results named name, and
// renders it.
func runNamed(ctx context.Context, spec scenarios.Spec, name string, args []string, stdout, stderr io.Writer) error {
	common, _, _, err := parse(spec, args, stdout)
	if err != nil {
		return err
	}
	if err := prepareOut(common.Out); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	rr, err := repeat(ctx, plannedRun{spec: spec, name: name, args: args}, *common, stderr)
	if err != nil {
		return err
	}
	rr.result.Scenario = name
	if err := report.Render(stdout, rr.result, common.Format); err != nil {
		return fmt.Errorf("%s: writing output: %w", name, err)
	}
	if err := attachCSV(rr, *common); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := writeOut(common.Out, rr, nil); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := writeJUnit(common.JUnit, []*report.Result{rr.result}); err != nil {
		return err
	}
	return verdictErr(rr.result.Verdict)
}

// verdictErr maps a run's verdict to run's error (nil: exit 0).
func verdictErr(v report.Verdict) error {
	switch v {
	case report.Outside:
		return errNotReproduced
	case report.Invalid, report.Inconclusive:
		return errInvalid
	}
	return nil
}

// repeated is what the runs of one planned scenario produced: the result
// (one run's, or the aggregate of several) and the histories of its valid runs.
type repeated struct {
	name      string
	result    *report.Result
	histories []savedHistory
	// runs are the results of the runs whose histories are saved, in the
	// same order (their pages beside the page of repeated runs).
	runs []*report.Result
}

// savedHistory is one valid run's history with what rebuilds its judge.
type savedHistory struct {
	header  history.HistoryHeader
	history *history.History
}

// repeat runs the scenario common.Runs times with seeds Seed … Seed+Runs−1,
// retrying an invalid run (same seed) up to common.RetryInvalid times in
// all; invalid runs are reported, never counted. One run gives its own
// result; several give their aggregate.
func repeat(ctx context.Context, r plannedRun, common scenarios.Common, stderr io.Writer) (*repeated, error) {
	out := &repeated{name: r.name}
	var valid []*report.Result
	var sums []report.RunSummary
	retries := common.RetryInvalid
	for i := 0; i < common.Runs; i++ {
		seed := common.Seed + int64(i)
		if common.Runs > 1 {
			fmt.Fprintf(stderr, "run %d of %d (seed %d)\n", i+1, common.Runs, seed)
		}
		res, saved, err := runOnce(ctx, r, seed, stderr)
		if err != nil {
			return nil, err
		}
		sum := report.RunSummary{Seed: seed, Verdict: res.Verdict, WallS: res.WallSeconds, Invalid: res.Why()}
		if res.Verdict == report.Invalid && retries > 0 {
			retries--
			sum.Retry = true
			sums = append(sums, sum)
			fmt.Fprintf(stderr, "invalid run (seed %d), retrying (%d retries left): %v\n", seed, retries, sum.Invalid)
			i--
			continue
		}
		sums = append(sums, sum)
		if res.Verdict != report.Invalid || common.Runs == 1 {
			// A single invalid run is reported as it is, with its history.
			valid, out.histories = append(valid, res), append(out.histories, saved)
		}
	}
	out.runs = valid
	out.result = combine(valid, sums, common.Runs)
	return out, nil
}

// combine returns the single run's result, or the aggregate of the valid
// runs with a gate on their number.
func combine(valid []*report.Result, sums []report.RunSummary, want int) *report.Result {
	if want == 1 {
		res := valid[0]
		if len(sums) > 1 {
			res.Runs = sums
		}
		return res
	}
	if len(valid) == 0 {
		res := report.NewResult("")
		res.Runs, res.Gates = sums, []report.Gate{validRunsGate(0, want)}
		res.Finish()
		return res
	}
	agg := report.Aggregate(valid, sums)
	agg.Gates = []report.Gate{validRunsGate(len(valid), want)}
	agg.Meta = history.NewMeta(time.Now())
	for _, r := range valid {
		if r.Meta != nil {
			agg.Meta.World.Add(r.Meta.World)
		}
	}
	agg.Finish()
	return agg
}

func validRunsGate(n, want int) report.Gate {
	return report.Gate{Name: "every repeated run valid (within the retry budget)", OK: n == want,
		Measured: fmt.Sprintf("%d valid runs", n), Limit: fmt.Sprintf("%d", want)}
}

// runOnce parses the run's arguments with the given seed, runs the plan
// and judges it.
func runOnce(ctx context.Context, r plannedRun, seed int64, stderr io.Writer) (*report.Result, savedHistory, error) {
	args := append(append([]string(nil), r.args...), "--seed", fmt.Sprint(seed))
	common, cfg, params, err := scenarios.Parse(r.spec, args)
	if err != nil {
		return nil, savedHistory{}, err
	}
	res, h, err := execute(ctx, r.spec, common, cfg, params, stderr)
	if err != nil {
		return nil, savedHistory{}, err
	}
	hdr := history.HistoryHeader{Scenario: r.spec.Name, Args: scenarios.SavedArgs(common, params), Seed: seed, Meta: res.Meta}
	return res, savedHistory{header: hdr, history: h}, nil
}

// execute runs the plan, cleans up everything the run started, and judges
// the recorded history (checks and the generic validity gates). A panic in
// the plan or the judge is an error naming the phase (a *fault.PanicError),
// after the clean-up ran.
func execute(ctx context.Context, spec scenarios.Spec, common *scenarios.Common, cfg scenarios.Config,
	params map[string]any, stderr io.Writer) (*report.Result, *history.History, error) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	env := scenarios.NewEnv(*common, log, stderr)
	defer env.Close()
	stopForce := forceOnSecondSignal(ctx, env, stderr)
	defer stopForce()

	fmt.Fprintf(stderr, "%s (%s) seed=%d — %s\n", spec.Name, spec.Article, common.Seed, spec.Summary)
	start := time.Now()
	h, err := runPlan(ctx, cfg, env)
	closeErr := env.Close()
	wall := time.Since(start)
	switch {
	case ctx.Err() != nil:
		return nil, nil, errInterrupted
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
	case closeErr != nil:
		return nil, nil, fmt.Errorf("%s: cleaning up: %w", spec.Name, closeErr)
	}
	var res *report.Result
	meta := scenarios.RunMeta(env, start)
	if err := fault.Guard("the judge", func() error { res = judge(spec, cfg, h, common.Seed, params, wall, meta); return nil }); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	return res, h, nil
}

// runPlan runs the plan; a panic in it (or in a goroutine of the harness
// that recovers it) is an error naming the phase, and the deferred
// clean-up of the world (env.Close: keys, leases, heals, children) still runs.
func runPlan(ctx context.Context, cfg scenarios.Config, env *scenarios.Env) (h *history.History, err error) {
	err = fault.Guard("the plan", func() error {
		var err error
		h, err = cfg.Run(ctx, env)
		return err
	})
	return h, err
}

// judge turns a history into the finished result, with meta as its metadata.
func judge(spec scenarios.Spec, cfg scenarios.Config, h *history.History, seed int64, params map[string]any,
	wall time.Duration, meta *history.Meta) *report.Result {
	res := cfg.Judge(h)
	res.Scenario, res.Seed, res.Params, res.WallSeconds = spec.Name, seed, params, wall.Seconds()
	if res.Title == "" {
		res.Title = spec.Article + ": " + spec.Summary
	}
	res.Gates = append(res.Gates, report.Gates(h)...)
	res.Meta = meta
	res.AddSamples()
	res.Finish()
	return res
}

// forceOnSecondSignal: the first Ctrl-C cancels ctx and the run winds down;
// a second one cleans up at once and exits.
func forceOnSecondSignal(ctx context.Context, env *scenarios.Env, stderr io.Writer) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		fmt.Fprintln(stderr, "experiments: stopping (press Ctrl-C again to force)")
		select {
		case <-done:
		case <-sig:
			_ = env.Close()
			fmt.Fprintln(stderr, "experiments: forced stop; child processes killed, temp data removed")
			os.Exit(exitInterrupted)
		}
	}()
	return func() { close(done) }
}
