package main

import (
	"fmt"

	"os"
	"path/filepath"
	"slices"

	"sdchaos/experiment"
	"sdchaos/figure"
	"sdchaos/report"
	"sdchaos/scenarios/anyregistry"
)

// matrixTable is one experiment's table: a row per subject of its checks
// (each caller, the registry, the members' roles), a column per world.
func matrixTable(x experiment.Experiment, runs []matrixRun) report.Table {
	t := report.Table{Title: fmt.Sprintf("%s: %s", x.Name, x.Summary), Header: []string{"client set-up"}}
	for _, r := range runs {
		t.Header = append(t.Header, string(r.registry))
	}
	for _, subject := range subjects(runs) {
		row := []string{subject}
		for _, r := range runs {
			row = append(row, matrixCell(r, subject))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"a caller's cell: calls failed / sent over the whole run · the worst verdict of its checks; the registry's and the members' rows: the worst verdict of their checks; — where the world has no such row"}
	for _, r := range runs {
		if r.cannot != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s cannot run it: %s", r.registry, r.cannot))
		}
	}
	return t
}

// subjects are the rows: every subject of every run's checks, callers in
// the experiment's order first.
func subjects(runs []matrixRun) []string {
	var out []string
	for _, r := range runs {
		if r.result == nil {
			continue
		}
		for _, c := range r.result.Checks {
			if c.Subject != "" && !slices.Contains(out, c.Subject) {
				out = append(out, c.Subject)
			}
		}
	}
	return out
}

// matrixCell is one world's cell of a row.
func matrixCell(r matrixRun, subject string) string {
	switch {
	case r.cannot != "":
		return "cannot"
	case r.result == nil:
		return "—"
	}
	var cs []report.Check
	for _, c := range r.result.Checks {
		if c.Subject == subject {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return "—"
	}
	v := string(report.RunVerdict(cs))
	if s, ok := r.result.Series[subject]; ok {
		okN, fail := s.Total()
		return fmt.Sprintf("%d/%d failed · %s", fail, okN+fail, v)
	}
	return v
}

// writeMatrixFigure draws one experiment's matrix: per caller, the share
// of its calls that failed on each world, as grouped bars.
func writeMatrixFigure(dir string, x experiment.Experiment, runs []matrixRun) error {
	if dir == "" {
		return nil
	}
	var callers []string
	for _, s := range subjects(runs) {
		if s != anyregistry.SubjectRegistry && hasSeries(runs, s) {
			callers = append(callers, s)
		}
	}
	var bars []figure.Bar
	for i, r := range runs {
		b := figure.Bar{Name: string(r.registry), Color: figure.Color(i)}
		for _, c := range callers {
			b.Values = append(b.Values, failedShare(r, c))
		}
		bars = append(bars, b)
	}
	p, err := figure.Bars(x.Name+": calls failed per client set-up and registry", "failed share of its calls (%)", callers, bars...)
	if err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	p.Y.Min, p.Y.Max = 0, 100
	return writePlot(dir, x.Name+".matrix", figure.One("matrix", p))
}

// hasSeries reports whether some run has per-second calls of subject.
func hasSeries(runs []matrixRun, subject string) bool {
	for _, r := range runs {
		if r.result != nil {
			if _, ok := r.result.Series[subject]; ok {
				return true
			}
		}
	}
	return false
}

// failedShare is the share (%) of subject's calls that failed in run r
// (NaN when it did not run there).
func failedShare(r matrixRun, subject string) float64 {
	if r.result == nil {
		return float64(nan())
	}
	s, ok := r.result.Series[subject]
	if !ok {
		return float64(nan())
	}
	okN, fail := s.Total()
	return report.Pct(fail, okN+fail)
}

// writePlot renders f as <dir>/<base>.svg and .png.
func writePlot(dir, base string, f figure.Plot) error {
	for ext, render := range map[string]func(figure.Plot) ([]byte, error){".svg": figure.SVG, ".png": figure.PNG} {
		b, err := render(f)
		if err != nil {
			return fmt.Errorf("matrix: drawing %s: %w", base, err)
		}
		if err := os.WriteFile(filepath.Join(dir, base+ext), b, 0o644); err != nil {
			return fmt.Errorf("matrix: %w", err)
		}
	}
	return nil
}
