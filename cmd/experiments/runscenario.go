package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// runScenario runs one scenario from its command line and renders it.
func runScenario(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	spec, err := lookup(name)
	if err != nil {
		return err
	}
	common, cfg, params, err := parse(spec, args, stdout)
	if err != nil {
		return err
	}
	if err := prepareOut(common.Out); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	res, err := execute(ctx, spec, common, cfg, params, stderr)
	if err != nil {
		return err
	}
	if err := report.Render(stdout, res, common.Format); err != nil {
		return fmt.Errorf("%s: writing output: %w", name, err)
	}
	if err := writeOut(common.Out, res.Scenario, res); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return verdictErr(res.Verdict)
}

// verdictErr maps a run's verdict to run's error (nil: exit 0).
func verdictErr(v report.Verdict) error {
	switch v {
	case report.Outside:
		return errNotReproduced
	case report.Invalid:
		return errInvalid
	}
	return nil
}

// execute runs the plan, cleans up everything the run started, and judges
// the recorded history.
func execute(ctx context.Context, spec scenarios.Spec, common *scenarios.Common, cfg scenarios.Config,
	params map[string]string, stderr io.Writer) (*report.Result, error) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	env := scenarios.NewEnv(*common, log, stderr)
	defer env.Close()
	stopForce := forceOnSecondSignal(ctx, env, stderr)
	defer stopForce()

	fmt.Fprintf(stderr, "%s (%s) seed=%d — %s\n", spec.Name, spec.Article, common.Seed, spec.Summary)
	start := time.Now()
	h, err := cfg.Run(ctx, env)
	closeErr := env.Close()
	wall := time.Since(start)
	switch {
	case ctx.Err() != nil:
		return nil, errInterrupted
	case err != nil:
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	case closeErr != nil:
		return nil, fmt.Errorf("%s: cleaning up: %w", spec.Name, closeErr)
	}
	res := cfg.Judge(h)
	res.Scenario, res.Seed, res.Params, res.WallSeconds = spec.Name, common.Seed, params, wall.Seconds()
	if res.Title == "" {
		res.Title = spec.Article + ": " + spec.Summary
	}
	res.Finish()
	return res, nil
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

// prepareOut creates dir (if set) and proves it writable before the run.
func prepareOut(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return scenarios.Usagef("--out %s: cannot create directory: %v", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-test-*")
	if err != nil {
		return scenarios.Usagef("--out %s: directory is not writable: %v", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeOut writes <base>.md and <base>.json into dir (if set).
func writeOut(dir, base string, res *report.Result) error {
	if dir == "" {
		return nil
	}
	for _, f := range []struct{ ext, format string }{{".md", "markdown"}, {".json", "json"}} {
		path := filepath.Join(dir, base+f.ext)
		if err := writeFile(path, func(w io.Writer) error { return report.Render(w, res, f.format) }); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	for _, name := range res.FileNames {
		path := filepath.Join(dir, base+"."+name)
		if err := os.WriteFile(path, res.Files[name], 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
