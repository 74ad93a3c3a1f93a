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
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if closeErr != nil {
		return fmt.Errorf("%s: cleaning up: %w", name, closeErr)
	}
	res := cfg.Judge(h)
	res.Scenario, res.Seed, res.Params, res.WallSeconds = spec.Name, common.Seed, params, wall.Seconds()
	if res.Title == "" {
		res.Title = spec.Article + ": " + spec.Summary
	}
	res.Finish()
	if err := report.Render(stdout, res, common.Format); err != nil {
		return fmt.Errorf("%s: writing output: %w", name, err)
	}
	if err := writeOut(common.Out, res); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	switch res.Verdict {
	case report.Outside:
		return errNotReproduced
	case report.Invalid:
		return errInvalid
	}
	return nil
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

// writeOut writes <scenario>.md and <scenario>.json into dir (if set).
func writeOut(dir string, res *report.Result) error {
	if dir == "" {
		return nil
	}
	for _, f := range []struct{ ext, format string }{{".md", "markdown"}, {".json", "json"}} {
		path := filepath.Join(dir, res.Scenario+f.ext)
		if err := writeFile(path, res, f.format); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

func writeFile(path string, res *report.Result, format string) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.Render(fh, res, format); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
