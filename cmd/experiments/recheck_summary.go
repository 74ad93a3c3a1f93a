package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sdchaos/report"
)

// refreshSummary brings the rows of dir's summary.json and summary.md (an
// `all --out` run's) up to date with what the judges say now of each
// report (judged, by name), keeping every other row, each run's wall time
// and the notes written under the table. A
// directory without a summary is left as it is.
func refreshSummary(dir string, judged map[string]*report.Result) error {
	path := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || len(judged) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var s struct {
		Runs []summaryRow `json:"runs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	for i, row := range s.Runs {
		if res, ok := judged[row.Name]; ok && row.Error == "" {
			fresh := summaryRow{Name: row.Name, Scenario: row.Scenario, Args: row.Args}
			fill(&fresh, res)
			s.Runs[i] = fresh
		}
	}
	notes, err := summaryNotes(filepath.Join(dir, "summary.md"))
	if err != nil {
		return err
	}
	if err := writeSummary(dir, summaryTable(s.Runs), s.Runs); err != nil {
		return err
	}
	return appendNotes(dir, notes)
}

// summaryNotes returns what follows the table in a summary.md (notes a
// person wrote under it), from its first line after the table on.
func summaryNotes(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(string(b), "\n")
	seen := false
	for i, l := range lines {
		table := strings.HasPrefix(l, "|")
		if seen && !table {
			return strings.Join(lines[i:], ""), nil
		}
		seen = seen || table
	}
	return "", nil
}

// refreshSweep brings the point verdicts of the sweep whose points dir
// holds (<sweep dir>/points) up to date with what the judges say now,
// rewriting the sweep's JSON, CSV and table; the measured curves are
// unchanged (recheck compares them point by point). Any other dir is left
// as it is.
func refreshSweep(dir string, judged map[string]*report.Result) error {
	if filepath.Base(dir) != "points" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(filepath.Dir(dir), "*.sweep-*.json"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := refreshSweepFile(f, judged); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// refreshSweepFile rewrites one sweep's files with its points' verdicts now.
func refreshSweepFile(path string, judged map[string]*report.Result) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var sr sweepResult
	if err := json.Unmarshal(b, &sr); err != nil {
		return err
	}
	for i, p := range sr.Points {
		if res, ok := judged[fmt.Sprintf("%s--%s=%s", sr.Scenario, sr.Param, p.Value)]; ok {
			sr.Points[i].Verdict = res.Verdict
		}
	}
	base := strings.TrimSuffix(path, ".json")
	for ext, write := range map[string]func(w io.Writer) error{
		".csv": sr.writeCSV, ".json": sr.writeJSON,
		".md": func(w io.Writer) error { return report.RenderTable(w, sr.table(), true) },
	} {
		if err := writeFile(base+ext, write); err != nil {
			return err
		}
	}
	return nil
}

// completeSummary makes dir's summary (an `all --out` run's summary.json
// and summary.md) list every run stored in dir, in the index's order: a
// run another command stored there (a run of its own, 'run --out') gains
// a row from its report, with no args. Rows of runs
// not stored (one that could not run) stay, after them; the notes under
// the table are kept. A directory without a summary is left as it is.
func completeSummary(dir string, runs []storedRun) error {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var s struct {
		Runs []summaryRow `json:"runs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(dir, "summary.json"), err)
	}
	rows := summaryInIndexOrder(s.Runs, runs)
	if slices.EqualFunc(rows, s.Runs, func(a, b summaryRow) bool { return a.Name == b.Name }) {
		return nil
	}
	notes, err := summaryNotes(filepath.Join(dir, "summary.md"))
	if err != nil {
		return err
	}
	if err := writeSummary(dir, summaryTable(rows), rows); err != nil {
		return err
	}
	return appendNotes(dir, notes)
}

// summaryInIndexOrder is a summary's rows for runs, in their order (a new
// row for a run the summary lacks), then the summary's other rows.
func summaryInIndexOrder(have []summaryRow, runs []storedRun) []summaryRow {
	byName := map[string]summaryRow{}
	for _, r := range have {
		byName[r.Name] = r
	}
	var out []summaryRow
	for _, r := range runs {
		row, ok := byName[r.name]
		if !ok {
			// Its args stay empty: it was not one of the summary's runs, and the
			// command that made it (its page gives it) is no scenario's flags.
			row = summaryRow{Name: r.name, Scenario: scenarioOf(r.res, r.name), Args: []string{}}
			fill(&row, r.res)
		}
		delete(byName, r.name)
		out = append(out, row)
	}
	for _, r := range have {
		if _, left := byName[r.Name]; left {
			out = append(out, r)
		}
	}
	return out
}

// appendNotes appends notes (what followed a summary's table) to dir's summary.md.
func appendNotes(dir, notes string) error {
	if notes == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, "summary.md"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString("\n" + strings.TrimLeft(notes, "\n"))
	return err
}
