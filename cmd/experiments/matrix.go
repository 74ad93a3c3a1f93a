package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/scenarios/anyregistry"
)

// matrixOptions are the flags of `experiments matrix`.
type matrixOptions struct {
	registries []experiment.Registry
	out        string
	seed       int64
	portBase   int
	markdown   bool
	quiet      bool
	names      []string
}

// parseMatrix reads `matrix [flags] EXPERIMENT...`.
func parseMatrix(args []string) (matrixOptions, error) {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := matrixOptions{}
	regs := fs.String("registries", strings.Join(rig.RegistryNames(), ","), "the worlds to run each experiment on, comma-separated")
	fs.StringVar(&o.out, "out", "", "write each run's report and history, the matrix (matrix.md, matrix.json) and its figures into this directory")
	fs.Int64Var(&o.seed, "seed", 1, "seed of every run")
	fs.IntVar(&o.portBase, "port-base", 9150, "first port each run listens on")
	fs.BoolVar(&o.markdown, "markdown", false, "print the tables as Markdown")
	fs.BoolVar(&o.quiet, "quiet", false, "no live progress lines")
	if err := fs.Parse(args); err != nil {
		return o, scenarios.Usagef("matrix: %v", err)
	}
	for _, r := range strings.Split(*regs, ",") {
		if _, err := rig.RegistryFor(experiment.Registry(r)); err != nil {
			return o, scenarios.Usagef("matrix: --registries: %v", err)
		}
		o.registries = append(o.registries, experiment.Registry(r))
	}
	o.names = fs.Args()
	if len(o.names) == 0 {
		return o, scenarios.Usagef("matrix: name at least one experiment (a built-in of source \"any registry\", or a file)")
	}
	return o, nil
}

// matrixRun is one experiment on one world: its result, or why it did not run.
type matrixRun struct {
	registry experiment.Registry
	result   *report.Result
	cannot   string
}

// matrix is `experiments matrix`: it runs each experiment on every world,
// one after another, and prints, per experiment, one table: a row per
// client set-up (and the registry's own checks), a column per world, each
// cell the calls failed and the verdict of that row's checks; a world that
// cannot run the experiment says why in its column.
func matrix(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseMatrix(args)
	if err != nil {
		return err
	}
	if err := prepareOut(o.out); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	var tables []report.Table
	var all []*report.Result
	for _, name := range o.names {
		x, spec, err := matrixExperiment(name)
		if err != nil {
			return err
		}
		runs, err := o.runAll(ctx, x, spec, stderr)
		if err != nil {
			return err
		}
		for _, r := range runs {
			if r.result != nil {
				all = append(all, r.result)
			}
		}
		t := matrixTable(x, runs)
		tables = append(tables, t)
		if err := report.RenderTable(stdout, t, o.markdown); err != nil {
			return err
		}
		if err := writeMatrixFigure(o.out, x, runs); err != nil {
			return err
		}
	}
	if err := writeMatrix(o.out, tables); err != nil {
		return err
	}
	return worstOf(all)
}

// matrixExperiment returns a built-in experiment by name, or a file's.
func matrixExperiment(name string) (experiment.Experiment, scenarios.Spec, error) {
	for _, x := range anyregistry.Builtins() {
		if x.Name == name {
			spec, err := lookup(name)
			return x, spec, err
		}
	}
	x, err := experiment.Load(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || !strings.ContainsAny(name, "./") {
			return x, scenarios.Spec{}, scenarios.Usagef("matrix: %q is neither a built-in experiment of source \"any registry\" nor a file", name)
		}
		return x, scenarios.Spec{}, scenarios.Usagef("%v", err)
	}
	spec, err := lookup(anyregistry.FileSpec)
	return x, spec, err
}

// runAll runs x on every world of the matrix that can run it.
func (o matrixOptions) runAll(ctx context.Context, x experiment.Experiment, spec scenarios.Spec, stderr io.Writer) ([]matrixRun, error) {
	var runs []matrixRun
	for _, name := range o.registries {
		reg, _ := rig.RegistryFor(name)
		if err := reg.Can(rig.ExpandClients(reg, x)); err != nil {
			fmt.Fprintf(stderr, "matrix: %s on %s: cannot: %v\n", x.Name, name, err)
			runs = append(runs, matrixRun{registry: name, cannot: err.Error()})
			continue
		}
		args := []string{"--registry", string(name), "--seed", fmt.Sprint(o.seed), "--port-base", fmt.Sprint(o.portBase)}
		if spec.FromFile {
			args = append([]string{"--file", x.Name}, args...)
		}
		if o.quiet {
			args = append(args, "--quiet")
		}
		fmt.Fprintf(stderr, "matrix: %s on %s\n", x.Name, name)
		rr, err := repeat(ctx, plannedRun{spec: spec, name: x.Name + "--" + string(name), args: args}, scenarios.DefaultCommon(), stderr)
		if errors.Is(err, errInterrupted) {
			return nil, err
		}
		if err != nil {
			runs = append(runs, matrixRun{registry: name, cannot: err.Error()})
			continue
		}
		rr.result.Scenario = rr.name
		if err := writeOut(o.out, rr, nil); err != nil {
			return nil, fmt.Errorf("matrix: %w", err)
		}
		runs = append(runs, matrixRun{registry: name, result: rr.result})
	}
	return runs, nil
}

// writeMatrix writes matrix.md and matrix.json into dir.
func writeMatrix(dir string, tables []report.Table) error {
	if dir == "" {
		return nil
	}
	if err := writeFile(filepath.Join(dir, "matrix.md"), func(w io.Writer) error {
		for _, t := range tables {
			if err := report.RenderTable(w, t, true); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	return writeFile(filepath.Join(dir, "matrix.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"tables": tables})
	})
}

// worstOf returns the error of the worst verdict among the results.
func worstOf(rs []*report.Result) error {
	var cs []report.Check
	for _, r := range rs {
		cs = append(cs, report.Check{Verdict: r.Verdict})
	}
	if len(cs) == 0 {
		return errInvalid
	}
	return verdictErr(report.RunVerdict(cs))
}
