package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"sdchaos/htmlreport"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// sweepOptions is what `experiments sweep` was asked: the scenario, the
// flag it varies and its values, where the outputs go, and every other
// argument, passed to each run as it is.
type sweepOptions struct {
	spec   scenarios.Spec
	param  string
	values []string
	out    string
	format string
	rest   []string
	xUnit  string // "s" when the swept flag is a duration
}

// sweepUsage is the one-line usage of sweep.
const sweepUsage = "sweep <scenario> --param NAME VALUES [--runs N] [--out DIR] [--format table|markdown|json|csv] [scenario flags]"

// parseSweep splits a sweep's arguments into its own flags (--param,
// --out, --format) and the scenario's, and checks the swept flag.
func parseSweep(args []string) (sweepOptions, error) {
	o := sweepOptions{format: "table"}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return o, scenarios.Usagef("sweep: name the scenario first: %s", sweepUsage)
	}
	spec, err := lookup(args[0])
	if err != nil {
		return o, fmt.Errorf("sweep: %w", err)
	}
	o.spec = spec
	var values string
	for i := 1; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", scenarios.Usagef("sweep: %s needs a value", args[i])
			}
			i++
			return args[i], nil
		}
		switch {
		case !strings.HasPrefix(args[i], "-"):
			o.rest = append(o.rest, args[i])
		case name == "param":
			if o.param, err = next(); err == nil {
				if i+1 >= len(args) {
					return o, scenarios.Usagef("sweep: --param %s needs its values: %s", o.param, sweepUsage)
				}
				i++
				values = args[i]
			}
		case name == "out":
			o.out, err = next()
		case name == "format":
			o.format, err = next()
		default:
			o.rest = append(o.rest, args[i])
		}
		if err != nil {
			return o, err
		}
	}
	return o, o.check(values)
}

// check validates the swept flag and expands its values.
func (o *sweepOptions) check(values string) error {
	if o.param == "" {
		return scenarios.Usagef("sweep %s: --param NAME VALUES is missing: %s", o.spec.Name, sweepUsage)
	}
	fs, _, _ := scenarios.NewFlagSet(o.spec)
	if f := fs.Lookup(o.param); f != nil && inSeconds(f.Value) {
		o.xUnit = "s"
	}
	if fs.Lookup(o.param) == nil || slices.Contains([]string{"seed", "runs", "out", "format", "junit", "retry-invalid", "quiet", "keep", "port-base"}, o.param) {
		return scenarios.Usagef("sweep %s: --param %s is not a parameter of the scenario; see 'experiments help %s'", o.spec.Name, o.param, o.spec.Name)
	}
	for _, a := range o.rest {
		if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && n == o.param {
			return scenarios.Usagef("sweep %s: --%s is swept; do not give it as well", o.spec.Name, o.param)
		}
	}
	if !slices.Contains([]string{"table", "markdown", "json", "csv"}, o.format) {
		return scenarios.Usagef("sweep: --format %q: want table, markdown, json or csv", o.format)
	}
	var err error
	if o.values, err = expandValues(values); err != nil {
		return scenarios.Usagef("sweep %s --param %s: %v", o.spec.Name, o.param, err)
	}
	for _, v := range o.values { // every point must parse before the first runs
		if _, _, _, err := scenarios.Parse(o.spec, o.pointArgs(v)); err != nil {
			return fmt.Errorf("sweep --%s %s: %w", o.param, v, err)
		}
	}
	return nil
}

// pointArgs are the scenario's arguments at one value of the swept flag.
func (o *sweepOptions) pointArgs(v string) []string {
	return append(append([]string(nil), o.rest...), "--"+o.param, v)
}

// inSeconds reports whether a flag holds durations (or seconds).
func inSeconds(v flag.Value) bool {
	if _, ok := v.(*scenarios.SecondsList); ok {
		return true
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return false
	}
	_, isDur := g.Get().(time.Duration)
	return isDur
}

// maxSweepPoints bounds a range's expansion.
const maxSweepPoints = 100

// expandValues reads VALUES: a comma-separated list, or a range
// FROM:TO:STEP of numbers ("1:5:0.5") or durations ("250ms:2s:250ms").
func expandValues(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("no value given")
	}
	if parts := strings.Split(s, ":"); len(parts) == 3 && !strings.Contains(s, ",") {
		return expandRange(parts)
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no value given")
	}
	return out, nil
}

// expandRange expands FROM:TO:STEP, numbers or durations.
func expandRange(parts []string) ([]string, error) {
	nums, errN := parseFloats(parts, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	durs, errD := parseFloats(parts, func(s string) (float64, error) {
		d, err := time.ParseDuration(s)
		return float64(d), err
	})
	format := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	switch {
	case errN == nil:
	case errD == nil:
		nums, format = durs, func(v float64) string { return time.Duration(math.Round(v)).String() }
	default:
		return nil, fmt.Errorf("range %q: want FROM:TO:STEP, all numbers or all durations", strings.Join(parts, ":"))
	}
	from, to, step := nums[0], nums[1], nums[2]
	if step <= 0 || to < from {
		return nil, fmt.Errorf("range %q: want FROM ≤ TO and a positive STEP", strings.Join(parts, ":"))
	}
	n := int(math.Floor((to-from)/step+1e-9)) + 1
	if n > maxSweepPoints {
		return nil, fmt.Errorf("range %q has %d points, more than %d", strings.Join(parts, ":"), n, maxSweepPoints)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = format(from + float64(i)*step)
	}
	return out, nil
}

func parseFloats(ss []string, parse func(string) (float64, error)) ([]float64, error) {
	out := make([]float64, len(ss))
	for i, s := range ss {
		v, err := parse(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// xOf is a value's position on a sweep's x axis: the number, a duration
// in seconds, or NaN for a value that is neither (drawn by name).
func xOf(v string) float64 {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds()
	}
	return math.NaN()
}

// sweep is `experiments sweep`: it runs the scenario once per value of the
// swept flag (each as often as --runs says), and reports one curve per
// headline number — the median with its 95 % interval, and the theory
// where the scenario knows it — as a table, CSV, JSON and a plot (--out).
// Its exit code is the worst point's, as for 'all'.
func sweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseSweep(args)
	if err != nil {
		return err
	}
	if err := prepareOut(o.out); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if o.out != "" {
		if err := prepareOut(pointsDir(o.out)); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	}
	sr := &sweepResult{Scenario: o.spec.Name, Param: o.param, XUnit: o.xUnit, Args: o.rest}
	var rows []summaryRow
	for i, v := range o.values {
		fmt.Fprintf(stderr, "[%d/%d] %s --%s %s\n", i+1, len(o.values), o.spec.Name, o.param, v)
		pt, row, err := sweepPoint(ctx, o, v, stderr)
		if errors.Is(err, errInterrupted) {
			return err
		}
		if err != nil {
			return err
		}
		sr.add(pt)
		rows = append(rows, row)
	}
	if err := writeSweep(stdout, o, sr); err != nil {
		return err
	}
	return worst(rows)
}

// sweepPoint runs the scenario at one value and measures its curves.
func sweepPoint(ctx context.Context, o sweepOptions, v string, stderr io.Writer) (pointResult, summaryRow, error) {
	args := o.pointArgs(v)
	name := fmt.Sprintf("%s--%s=%s", o.spec.Name, o.param, v)
	row := summaryRow{Name: name, Scenario: o.spec.Name, Args: args}
	common, cfg, _, err := scenarios.Parse(o.spec, args)
	if err != nil {
		return pointResult{}, row, fmt.Errorf("sweep: %w", err)
	}
	rr, err := repeat(ctx, plannedRun{spec: o.spec, name: name, args: args}, *common, stderr)
	if err != nil {
		return pointResult{}, row, err
	}
	fill(&row, rr.result)
	if o.out != "" {
		if err := writePoint(pointsDir(o.out), rr, sweepUp(&sweepResult{Scenario: o.spec.Name, Param: o.param})); err != nil {
			return pointResult{}, row, fmt.Errorf("sweep: %w", err)
		}
	}
	return measurePoint(v, cfg, rr.result), row, nil
}

// writePoint writes one point's report (markdown and JSON), its saved
// histories and its page into dir, as --out does but without the plots:
// the sweep's own plot is the point of it, and 'experiments plot DIR'
// draws a point's on demand ('experiments pages' then embeds them);
// 'experiments recheck DIR' re-judges them.
func writePoint(dir string, rr *repeated, up []htmlreport.Link) error {
	for _, f := range []struct{ ext, format string }{{".md", "markdown"}, {".json", "json"}} {
		path := filepath.Join(dir, rr.name+f.ext)
		if err := writeFile(path, func(w io.Writer) error { return report.Render(w, rr.result, f.format) }); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := writeHistories(dir, rr); err != nil {
		return err
	}
	return writeRunPageOf(dir, rr.name, rr.result, nil, up)
}

// curvesOf returns the headline numbers of a config's result: the
// scenario's own (Sweeper), or every check's measurement with its band.
func curvesOf(cfg scenarios.Config, res *report.Result) []scenarios.Curve {
	if s, ok := cfg.(scenarios.Sweeper); ok {
		return s.Curves()
	}
	var out []scenarios.Curve
	for _, c := range res.Checks {
		out = append(out, scenarios.Curve{Name: c.Name, Unit: strings.TrimSpace(c.Unit)})
	}
	return out
}

// measurePoint reads each curve's median, interval, theory and band off
// one point's result (its samples hold every valid run's value).
func measurePoint(v string, cfg scenarios.Config, res *report.Result) pointResult {
	pt := pointResult{Value: v, X: report.Number(xOf(v)), Verdict: res.Verdict, Values: map[string]curveValue{}}
	checks := map[string]report.Check{}
	for _, c := range res.Checks {
		checks[c.Name] = c
	}
	for _, c := range curvesOf(cfg, res) {
		key, check := "metric:"+c.Metric, c.Check
		if c.Metric == "" {
			key, check = "check:"+c.Name, c.Name
		}
		cv := curveValue{Median: nan(), Lo: nan(), Hi: nan(), Theory: nan(), BandLo: nan(), BandHi: nan()}
		if res.Verdict != report.Invalid {
			m, lo, hi := report.MedianCI(res.Samples[key])
			cv.Median, cv.Lo, cv.Hi, cv.N = report.Number(m), report.Number(lo), report.Number(hi), len(res.Samples[key])
		}
		if c.Theory != "" {
			cv.Theory = report.Number(report.Median(res.Samples["metric:"+c.Theory]))
		}
		if ch, ok := checks[check]; ok {
			cv.BandLo, cv.BandHi = ch.BandLo, ch.BandHi
		}
		pt.Values[c.Name] = cv
		pt.curves = append(pt.curves, c)
	}
	return pt
}

func nan() report.Number { return report.Number(math.NaN()) }
