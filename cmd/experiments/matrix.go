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
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
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
	runs       int
	portBase   int
	markdown   bool
	quiet      bool
	stored     bool
	names      []string
}

// parseMatrix reads `matrix [flags] EXPERIMENT...`.
func parseMatrix(args []string) (matrixOptions, error) {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := matrixOptions{}
	regs := fs.String("registries", strings.Join(rig.RegistryNames(), ","), "the worlds to run each experiment on, comma-separated")
	fs.StringVar(&o.out, "out", "", "write each run's report and history, the matrix (matrix.md, matrix.json) and its figures into this directory")
	fs.Int64Var(&o.seed, "seed", 1, "seed of every run (with --runs N, seeds seed … seed+N−1)")
	fs.IntVar(&o.runs, "runs", 1, "run each cell N times (seeds seed … seed+N−1): a cell gives the median of its failures with their range and how many runs every check held in")
	fs.IntVar(&o.portBase, "port-base", 9150, "first port each run listens on")
	fs.BoolVar(&o.markdown, "markdown", false, "print the tables as Markdown")
	fs.BoolVar(&o.quiet, "quiet", false, "no live progress lines")
	fs.BoolVar(&o.stored, "stored", false, "run nothing: make the matrix from the runs already in --out (<experiment>--<registry>.json, as a matrix or 'run --out' wrote them; a world's missing run is a cell \"not run\")")
	if err := fs.Parse(args); err != nil {
		return o, scenarios.Usagef("matrix: %v", err)
	}
	for _, r := range strings.Split(*regs, ",") {
		if _, err := rig.RegistryFor(experiment.Registry(r)); err != nil {
			return o, scenarios.Usagef("matrix: --registries: %v", err)
		}
		o.registries = append(o.registries, experiment.Registry(r))
	}
	if o.runs < 1 {
		return o, scenarios.Usagef("matrix: --runs %d: want at least 1", o.runs)
	}
	o.names = fs.Args()
	if o.stored && o.out == "" {
		return o, scenarios.Usagef("matrix: --stored needs --out, the directory that holds the runs")
	}
	if len(o.names) == 0 {
		return o, scenarios.Usagef("matrix: name at least one experiment (a built-in of source \"any registry\", or a file)")
	}
	return o, nil
}

// command is the command that makes the matrix again.
func (o matrixOptions) command() string {
	var regs []string
	for _, r := range o.registries {
		regs = append(regs, string(r))
	}
	words := []string{"go", "run", "./cmd/experiments", "matrix", "--registries", strings.Join(regs, ","), "--seed", fmt.Sprint(o.seed)}
	if o.runs > 1 {
		words = append(words, "--runs", fmt.Sprint(o.runs))
	}
	if o.out != "" {
		words = append(words, "--out", shellQuote(filepath.ToSlash(filepath.Clean(o.out))))
	}
	for _, n := range o.names {
		words = append(words, shellQuote(n))
	}
	return strings.Join(words, " ")
}

// matrixRun is one experiment on one world: its result, or why it did not run.
type matrixRun struct {
	registry experiment.Registry
	result   *report.Result
	cannot   string
	// failed is why a world that can run the experiment did not (its
	// start failed, say): not a verdict on the registry.
	failed string
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
	if err := o.prepare(); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	doc := matrixDoc{Command: o.command(), Harness: history.NewMeta(time.Now()).Harness}
	var all []*report.Result
	for _, name := range o.names {
		x, spec, err := matrixExperiment(name)
		if err != nil {
			return err
		}
		run := o.runAll
		if o.stored {
			run = o.loadAll
		}
		runs, err := run(ctx, x, spec, stderr)
		if err != nil {
			return err
		}
		for _, r := range runs {
			switch {
			case r.result != nil:
				all = append(all, r.result)
			case r.failed != "":
				all = append(all, &report.Result{Verdict: report.Invalid}) // a world that did not run judged nothing
			}
		}
		d := matrixExperimentOf(x, runs)
		doc.Experiments = append(doc.Experiments, d)
		if err := report.RenderTable(stdout, d.table(), o.markdown); err != nil {
			return err
		}
		if err := writeMatrixFigure(o.out, x, runs); err != nil {
			return err
		}
	}
	if err := writeMatrix(o.out, doc); err != nil {
		return err
	}
	return worstOf(all)
}

// matrixExperiment returns a built-in experiment by name, or a file's.
func matrixExperiment(name string) (experiment.Experiment, scenarios.Spec, error) {
	x, builtin, err := anyregistry.Named(name)
	if err != nil {
		return x, scenarios.Spec{}, fmt.Errorf("matrix: %w", err)
	}
	if builtin {
		spec, err := lookup(name)
		return x, spec, err
	}
	spec, err := lookup(anyregistry.FileSpec)
	return x, spec, err
}

// prepare makes the output directory of a matrix that runs, and checks
// that a stored matrix's exists.
func (o matrixOptions) prepare() error {
	if !o.stored {
		return prepareOut(o.out)
	}
	if st, err := os.Stat(o.out); err != nil || !st.IsDir() {
		return scenarios.Usagef("matrix: --stored: %s is not a directory", o.out)
	}
	return nil
}

// loadAll reads x's stored run of every world of the matrix from --out; a
// world that cannot run x says why, one whose run is missing is "not run".
func (o matrixOptions) loadAll(_ context.Context, x experiment.Experiment, _ scenarios.Spec, _ io.Writer) ([]matrixRun, error) {
	var runs []matrixRun
	for _, name := range o.registries {
		reg, _ := rig.RegistryFor(name)
		if err := reg.Can(rig.ExpandClients(reg, x)); err != nil {
			runs = append(runs, matrixRun{registry: name, cannot: err.Error()})
			continue
		}
		path := filepath.Join(o.out, x.Name+"--"+string(name)+".json")
		if !exists(path) {
			runs = append(runs, matrixRun{registry: name})
			continue
		}
		r, err := loadResult(path)
		if err != nil {
			return nil, fmt.Errorf("matrix: %w", err)
		}
		r.Scenario = x.Name + "--" + string(name)
		runs = append(runs, matrixRun{registry: name, result: r})
	}
	return runs, nil
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
		args := []string{"--registry", string(name), "--seed", fmt.Sprint(o.seed), "--port-base", fmt.Sprint(o.portBase), "--runs", fmt.Sprint(o.runs)}
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
			fmt.Fprintf(stderr, "matrix: %s on %s did not run: %v\n", x.Name, name, err)
			runs = append(runs, matrixRun{registry: name, failed: firstLine(err.Error())})
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

// writeMatrix writes matrix.md, matrix.json and matrix.html into dir.
func writeMatrix(dir string, doc matrixDoc) error {
	if dir == "" {
		return nil
	}
	if err := writeFile(filepath.Join(dir, "matrix.md"), func(w io.Writer) error {
		for _, d := range doc.Experiments {
			if err := report.RenderTable(w, d.table(), true); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	if err := writeFile(filepath.Join(dir, matrixJSON), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	return writeMatrixPage(dir, doc, nil)
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

// firstLine is s up to its first line break (a start failure quotes a log).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
