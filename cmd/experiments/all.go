package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"sdchaos/htmlreport"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// allOptions are the flags of `experiments all`.
type allOptions struct {
	only     []string
	variants bool
	out      string
	seed     int64
	portBase int
	runs     int
	quiet    bool
	junit    string
	baseline string
	// eureka is --eureka, passed to the scenarios that take it.
	eureka string
}

func parseAll(args []string) (allOptions, error) {
	o := allOptions{seed: 1, portBase: 9150}
	fs := flag.NewFlagSet("all", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	only := fs.String("only", "", "comma-separated scenarios to run, or variants by their name scenario--variant (default: every scenario)")
	fs.BoolVar(&o.variants, "variants", false, "also run each scenario's reference variants (see 'help <scenario>')")
	fs.StringVar(&o.out, "out", "", "write every run's <name>.md, <name>.json and <name>.html, and summary.md/summary.json and index.html (every run linked), into this directory")
	fs.Int64Var(&o.seed, "seed", o.seed, "seed of every run")
	fs.IntVar(&o.portBase, "port-base", o.portBase, "first loopback port the runs may listen on (≥ 9150)")
	fs.IntVar(&o.runs, "runs", 1, "run each scenario N times (seeds seed … seed+N−1) and judge medians with 95 % intervals")
	fs.BoolVar(&o.quiet, "quiet", false, "no live progress lines on stderr")
	fs.StringVar(&o.junit, "junit", "", "also write every run's checks as JUnit XML to this file")
	fs.StringVar(&o.baseline, "baseline", "", "compare every run with the results in this directory (as 'compare'); exit 1 on a significant move")
	fs.StringVar(&o.eureka, "eureka", "", "model or real: what runs the Eureka scenarios (each at its default when not given)")
	if err := fs.Parse(args); err != nil {
		return o, scenarios.Usagef("all: %v; see 'experiments help'", err)
	}
	if fs.NArg() > 0 {
		return o, scenarios.Usagef("all: unexpected argument %q", fs.Arg(0))
	}
	if o.eureka != "" && o.eureka != "model" && o.eureka != "real" {
		return o, scenarios.Usagef("all: --eureka %q: want model or real", o.eureka)
	}
	if o.runs < 1 || o.runs > 1000 {
		return o, scenarios.Usagef("all: --runs (%d) must be within 1–1000", o.runs)
	}
	if o.baseline != "" {
		if _, err := loadResults(o.baseline); err != nil {
			return o, fmt.Errorf("all --baseline: %w", err)
		}
	}
	for _, name := range strings.Split(*only, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if !isVariant(name) {
			if _, err := lookup(name); err != nil {
				return o, fmt.Errorf("all --only: %w", err)
			}
		}
		o.only = append(o.only, name)
	}
	return o, nil
}

// plannedRun is one run of `all`: a scenario at its defaults or a variant.
type plannedRun struct {
	spec scenarios.Spec
	name string // output name: scenario or scenario--variant
	args []string
}

func (o allOptions) plan() []plannedRun {
	var out []plannedRun
	common := [][]string{{"--seed", fmt.Sprint(o.seed)}, {"--port-base", fmt.Sprint(o.portBase)}, {"--runs", fmt.Sprint(o.runs)}}
	if o.quiet {
		common = append(common, []string{"--quiet"})
	}
	for _, s := range scenarios.All() {
		whole := len(o.only) == 0 || slices.Contains(o.only, s.Name)
		common := common
		if o.eureka != "" && takesFlag(s, "eureka") {
			common = append(common, []string{"--eureka", o.eureka})
		}
		switch {
		case whole && privateByDefault(s.Name, nil):
			// It drops real packets: run in the private namespace, where `all --variants` goes
			// anyway, or when --only names it; `all` alone stays on the host's loopback.
			if o.variants || slices.Contains(o.only, s.Name) {
				out = append(out, plannedRun{spec: s, name: s.Name, args: withCommon(s, common, []string{"--net", "private"})})
			}
		case whole:
			out = append(out, plannedRun{spec: s, name: s.Name, args: withCommon(s, common, nil)})
		}
		for _, v := range s.Variants {
			if !(whole && o.variants) && !slices.Contains(o.only, s.Name+"--"+v.Name) {
				continue
			}
			vc := common
			if slices.Contains(v.Args, "--eureka") { // a variant that names its back-end keeps it
				vc = slices.DeleteFunc(slices.Clone(common), func(f []string) bool { return f[0] == "--eureka" })
			}
			out = append(out, plannedRun{spec: s, name: s.Name + "--" + v.Name, args: withCommon(s, vc, v.Args)})
		}
	}
	return out
}

// isVariant reports whether name is a scenario's reference variant
// (scenario--variant), which --only may name alone.
func isVariant(name string) bool {
	for _, s := range scenarios.All() {
		for _, v := range s.Variants {
			if name == s.Name+"--"+v.Name {
				return true
			}
		}
	}
	return false
}

// takesFlag reports whether scenario s has the flag name.
func takesFlag(s scenarios.Spec, name string) bool {
	fs, _, _ := scenarios.NewFlagSet(s)
	return fs.Lookup(name) != nil
}

// withCommon adds the common flags the scenario offers to args; each
// common flag is its name and, but for a boolean one, its value.
func withCommon(s scenarios.Spec, common [][]string, args []string) []string {
	out := append([]string(nil), args...)
	for _, f := range common {
		if s.Ground.Offers(strings.TrimPrefix(f[0], "--")) {
			out = append(out, f...)
		}
	}
	return out
}

// summaryRow is one run in the summary (and in summary.json).
type summaryRow struct {
	Name       string         `json:"name"`
	Scenario   string         `json:"scenario"`
	Args       []string       `json:"args"`
	Verdict    report.Verdict `json:"verdict"`
	Reproduced int            `json:"reproduced"`
	Differs    int            `json:"differs"`
	Outside    int            `json:"outside"`
	Invalid    int            `json:"invalid"`
	Inconcl    int            `json:"inconclusive"`
	WallS      float64        `json:"wall_s"`
	TimelineS  float64        `json:"timeline_s"`
	Error      string         `json:"error,omitempty"`
	Why        []string       `json:"why,omitempty"`
}

// runAll runs every planned scenario one after another (they are timing
// sensitive), prints the summary and returns the worst outcome.
func runAll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseAll(args)
	if err != nil {
		return err
	}
	if err := prepareOut(o.out); err != nil {
		return fmt.Errorf("all: %w", err)
	}
	var rows []summaryRow
	var results []*report.Result
	runs := o.plan()
	for i, r := range runs {
		fmt.Fprintf(stderr, "[%d/%d] %s %s\n", i+1, len(runs), r.spec.Name, strings.Join(r.args, " "))
		row, res, err := runPlanned(ctx, r, o.out, stderr)
		if errors.Is(err, errInterrupted) {
			return err
		}
		rows = append(rows, row)
		if res != nil {
			results = append(results, res)
		}
		fmt.Fprintf(stderr, "[%d/%d] %s: %s\n", i+1, len(runs), r.name, orError(row))
	}
	t := summaryTable(rows)
	if err := report.RenderTable(stdout, t, false); err != nil {
		return err
	}
	if err := writeSummary(o.out, t, rows); err != nil {
		return fmt.Errorf("all: %w", err)
	}
	if err := writeJUnit(o.junit, results); err != nil {
		return err
	}
	werr := worst(rows)
	if o.baseline != "" {
		if err := compareWithBaseline(o.baseline, o.out, results, stdout); err != nil && werr == nil {
			werr = err
		}
	}
	if o.out != "" {
		if err := writeIndex(o.out, nil); err != nil {
			return fmt.Errorf("all: %w", err)
		}
	}
	return werr
}

func orError(r summaryRow) string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	return string(r.Verdict)
}

// runPlanned runs one planned scenario (as often as --runs says) and
// writes its outputs.
func runPlanned(ctx context.Context, r plannedRun, out string, stderr io.Writer) (summaryRow, *report.Result, error) {
	row := summaryRow{Name: r.name, Scenario: r.spec.Name, Args: r.args}
	common, _, _, err := scenarios.Parse(r.spec, r.args)
	var rr *repeated
	if err == nil {
		if rr, err = repeat(ctx, r, *common, stderr); err == nil {
			rr.result.Scenario = r.name // a variant's results are filed under its own name
			fill(&row, rr.result)
			err = writeOut(out, rr, []htmlreport.Link{{Text: "index of the runs", Href: indexPage}})
		}
	}
	if err != nil {
		row.Error = err.Error()
		return row, nil, err
	}
	return row, rr.result, nil
}

func fill(row *summaryRow, res *report.Result) {
	row.Verdict, row.WallS, row.TimelineS = res.Verdict, res.WallSeconds, res.TimelineSeconds
	row.Reproduced, row.Differs = len(res.With(report.Reproduced)), len(res.With(report.Differs))
	row.Outside, row.Invalid = len(res.With(report.Outside)), len(res.With(report.Invalid))
	row.Inconcl = len(res.With(report.Inconclusive))
	for _, c := range append(append(res.With(report.Outside), res.With(report.Invalid)...), res.With(report.Inconclusive)...) {
		row.Why = append(row.Why, c.Name)
	}
	row.Why = append(row.Why, failedGates(res.Gates)...)
}

func summaryTable(rows []summaryRow) report.Table {
	t := report.Table{Title: fmt.Sprintf("%d runs, one after another", len(rows)),
		Header: []string{"run", "verdict", "reproduced", "differs", "outside", "inconclusive", "invalid", "wall s", "timeline s"}}
	for _, r := range rows {
		v := string(r.Verdict)
		if r.Error != "" {
			v = "ERROR: " + report.ShortErr(r.Error)
		}
		t.Rows = append(t.Rows, []string{r.Name, v, fmt.Sprint(r.Reproduced), fmt.Sprint(r.Differs), fmt.Sprint(r.Outside),
			fmt.Sprint(r.Inconcl), fmt.Sprint(r.Invalid), fmt.Sprintf("%.1f", r.WallS), fmt.Sprintf("%.1f", r.TimelineS)})
	}
	return t
}

func writeSummary(dir string, t report.Table, rows []summaryRow) error {
	if dir == "" {
		return nil
	}
	if err := writeFile(filepath.Join(dir, "summary.md"), func(w io.Writer) error {
		return report.RenderTable(w, t, true)
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "summary.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"runs": rows})
	})
}

// worst returns the error of the worst outcome: a run that could not run,
// then outside, then invalid.
func worst(rows []summaryRow) error {
	var vs []report.Verdict
	for _, r := range rows {
		if r.Error != "" {
			return fmt.Errorf("all: %s: %s", r.Name, r.Error)
		}
		vs = append(vs, r.Verdict)
	}
	switch {
	case slices.Contains(vs, report.Outside):
		return errNotReproduced
	case slices.Contains(vs, report.Invalid), slices.Contains(vs, report.Inconclusive):
		return errInvalid
	}
	return nil
}

func failedGates(gs []report.Gate) []string {
	var out []string
	for _, g := range gs {
		if !g.OK {
			out = append(out, "gate: "+g.Name)
		}
	}
	return out
}
