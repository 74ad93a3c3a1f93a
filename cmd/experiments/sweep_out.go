package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sdchaos/figure"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// sweepResult is a whole sweep: its points and the curves drawn through
// them (the JSON written with --out and printed by --format json).
type sweepResult struct {
	Scenario string            `json:"scenario"`
	Param    string            `json:"param"`
	XUnit    string            `json:"x_unit,omitempty"`
	Args     []string          `json:"args"`
	Curves   []scenarios.Curve `json:"curves"`
	Points   []pointResult     `json:"points"`
}

// pointResult is one value of the swept flag: its verdict and each
// curve's value there.
type pointResult struct {
	Value   string                `json:"value"`
	X       report.Number         `json:"x"`
	Verdict report.Verdict        `json:"verdict"`
	Values  map[string]curveValue `json:"values"`
	curves  []scenarios.Curve
}

// curveValue is one curve at one point: the median over the valid runs
// with its 95 % interval (NaN below 6 runs), the theory, the check's band
// and how many runs measured it.
type curveValue struct {
	Median report.Number `json:"median"`
	Lo     report.Number `json:"ci_lo"`
	Hi     report.Number `json:"ci_hi"`
	Theory report.Number `json:"theory"`
	BandLo report.Number `json:"band_lo"`
	BandHi report.Number `json:"band_hi"`
	N      int           `json:"runs"`
}

// value returns the point's value of a curve (NaN when it has none).
func (p pointResult) value(name string) curveValue {
	if v, ok := p.Values[name]; ok {
		return v
	}
	n := report.Number(math.NaN())
	return curveValue{Median: n, Lo: n, Hi: n, Theory: n, BandLo: n, BandHi: n}
}

// add appends a point and any curve not seen before.
func (sr *sweepResult) add(pt pointResult) {
	sr.Points = append(sr.Points, pt)
	for _, c := range pt.curves {
		if !containsCurve(sr.Curves, c.Name) {
			sr.Curves = append(sr.Curves, c)
		}
	}
}

func containsCurve(cs []scenarios.Curve, name string) bool {
	for _, c := range cs {
		if c.Name == name {
			return true
		}
	}
	return false
}

// baseName is the stem of the sweep's files: <scenario>.sweep-<param>.
func (sr *sweepResult) baseName() string { return sr.Scenario + sweepInfix + sr.Param }

// sweepInfix names a sweep's files: <scenario>.sweep-<param>.<ext>.
const sweepInfix = ".sweep-"

// pointsDir is where each point's own reports and histories go.
func pointsDir(out string) string { return filepath.Join(out, "points") }

// numText formats a number in 4 significant digits, from 10,000 as a
// whole number ("—" when not finite).
func numText(v report.Number) string {
	f := float64(v)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "—"
	case math.Abs(f) >= 1e4 && math.Abs(f) < 1e12:
		return strconv.FormatFloat(math.Round(f), 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

// table is the sweep as one table: a row per curve (and its theory), a
// column per value.
func (sr *sweepResult) table() report.Table {
	t := report.Table{Title: fmt.Sprintf("%s: sweep of --%s (median over the valid runs [95 %% interval with ≥ 6 runs])", sr.Scenario, sr.Param),
		Header: []string{"curve", "unit"}}
	verdicts := []string{"verdict", ""}
	for _, p := range sr.Points {
		t.Header = append(t.Header, "--"+sr.Param+" "+p.Value)
		verdicts = append(verdicts, string(p.Verdict))
	}
	t.Rows = append(t.Rows, verdicts)
	for _, c := range sr.Curves {
		row, theory := []string{c.Name, c.Unit}, []string{"  theory", c.Unit}
		hasTheory := false
		for _, p := range sr.Points {
			v := p.value(c.Name)
			cell := numText(v.Median)
			if finiteNum(v.Lo) && finiteNum(v.Hi) {
				cell += " [" + numText(v.Lo) + ", " + numText(v.Hi) + "]"
			}
			row = append(row, cell)
			theory = append(theory, numText(v.Theory))
			hasTheory = hasTheory || finiteNum(v.Theory)
		}
		t.Rows = append(t.Rows, row)
		if hasTheory {
			t.Rows = append(t.Rows, theory)
		}
	}
	t.Notes = []string{"each point's own report and saved history: points/ beside this file (with --out; 'experiments plot' draws them, 'experiments recheck' re-judges them); an invalid point's numbers are not used (—)"}
	return t
}

func finiteNum(v report.Number) bool { return finite(float64(v)) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// writeCSV writes the sweep in long form: one line per point and curve.
func (sr *sweepResult) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"scenario", "param", "value", "x", "verdict", "curve", "unit", "median", "ci_lo", "ci_hi", "theory", "band_lo", "band_hi", "runs"})
	for _, p := range sr.Points {
		for _, c := range sr.Curves {
			v := p.value(c.Name)
			_ = cw.Write([]string{sr.Scenario, sr.Param, p.Value, csvNum(p.X), string(p.Verdict), c.Name, c.Unit,
				csvNum(v.Median), csvNum(v.Lo), csvNum(v.Hi), csvNum(v.Theory), csvNum(v.BandLo), csvNum(v.BandHi), strconv.Itoa(v.N)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvNum writes a number in full precision, empty when not finite.
func csvNum(v report.Number) string {
	if !finiteNum(v) {
		return ""
	}
	return strconv.FormatFloat(float64(v), 'g', -1, 64)
}

func (sr *sweepResult) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sr)
}

// writeSweep prints the sweep on stdout in the asked format and, with
// --out, writes its CSV, JSON, markdown table and plot.
func writeSweep(stdout io.Writer, o sweepOptions, sr *sweepResult) error {
	var err error
	switch o.format {
	case "csv":
		err = sr.writeCSV(stdout)
	case "json":
		err = sr.writeJSON(stdout)
	default:
		err = report.RenderTable(stdout, sr.table(), o.format == "markdown")
	}
	if err != nil {
		return fmt.Errorf("sweep: writing output: %w", err)
	}
	if o.out == "" {
		return nil
	}
	base := filepath.Join(o.out, sr.baseName())
	for ext, write := range map[string]func(io.Writer) error{
		".csv": sr.writeCSV, ".json": sr.writeJSON,
		".md": func(w io.Writer) error { return report.RenderTable(w, sr.table(), true) },
	} {
		if err := writeFile(base+ext, write); err != nil {
			return fmt.Errorf("sweep: writing %s: %w", base+ext, err)
		}
	}
	if err := sr.writePlot(base); err != nil {
		return err
	}
	return writeSweepPage(o.out, sr, nil)
}

// writePlot renders the sweep's figure as <base>.svg and <base>.png.
func (sr *sweepResult) writePlot(base string) error {
	f, err := sr.figure()
	if err != nil {
		return fmt.Errorf("sweep: plotting: %w", err)
	}
	for ext, render := range map[string]func(figure.Plot) ([]byte, error){".svg": figure.SVG, ".png": figure.PNG} {
		b, err := render(f)
		if err != nil {
			return fmt.Errorf("sweep: plotting: %w", err)
		}
		if err := os.WriteFile(base+ext, b, 0o644); err != nil {
			return fmt.Errorf("sweep: writing %s: %w", base+ext, err)
		}
	}
	return nil
}

// curveTitle shortens a long curve name for a panel title.
func curveTitle(name string) string {
	const most = 95
	if r := []rune(name); len(r) > most {
		return strings.TrimSpace(string(r[:most-1])) + "…"
	}
	return name
}
