package main

import (
	"fmt"
	"maps"
	"slices"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/scenarios/anyregistry"
)

// matrixDoc is matrix.json: every experiment of a matrix with, per world,
// the run it made (or why it could not) and the cells of its table. The
// Markdown tables and the page are both drawn from it.
type matrixDoc struct {
	// Command makes the matrix again.
	Command string `json:"command"`
	// Harness is the revision of the harness that made the matrix (a
	// "-dirty" suffix: a tree with uncommitted changes); each world's run
	// says its own (its meta), which --stored may have read from older runs.
	Harness     string                `json:"harness,omitempty"`
	Experiments []matrixExperimentDoc `json:"experiments"`
}

// matrixExperimentDoc is one experiment of a matrix.
type matrixExperimentDoc struct {
	Name    string           `json:"name"`
	Summary string           `json:"summary"`
	Worlds  []matrixWorldDoc `json:"worlds"`
	Rows    []matrixRowDoc   `json:"rows"`
}

// matrixWorldDoc is one column: a world, the stem of its run's files, the
// run's verdict, or why the world could not run the experiment.
type matrixWorldDoc struct {
	Registry experiment.Registry `json:"registry"`
	Run      string              `json:"run,omitempty"`
	Verdict  report.Verdict      `json:"verdict,omitempty"`
	// Harness, Seeds and WallSeconds say what made the run: the harness's
	// revision, the seed of each run (several with --runs), its wall time.
	Harness     string  `json:"harness,omitempty"`
	Seeds       []int64 `json:"seeds,omitempty"`
	WallSeconds float64 `json:"wall_s,omitempty"`
	Cannot      string  `json:"cannot,omitempty"`
	// Failed is why a world that can run the experiment did not (its start
	// failed, say): not a verdict on the registry.
	Failed string `json:"failed,omitempty"`
}

// matrixRowDoc is one row: a subject of the checks (a client set-up, the
// registry, the members' roles) and its cell on each world.
type matrixRowDoc struct {
	Subject string          `json:"subject"`
	Cells   []matrixCellDoc `json:"cells"`
}

// matrixCellDoc is one cell: the calls failed of a caller ("2/80 failed",
// empty for a row without calls), the worst verdict of the row's checks,
// Cannot where the world could not run, Missing where its run has no such row.
type matrixCellDoc struct {
	Calls     string         `json:"calls,omitempty"`
	Verdict   report.Verdict `json:"verdict,omitempty"`
	Cannot    bool           `json:"cannot,omitempty"`
	DidNotRun bool           `json:"did_not_run,omitempty"`
	Missing   bool           `json:"missing,omitempty"`
	// NotJudged marks a caller whose calls were counted but that no check
	// judged (its world's rules give no band for it here).
	NotJudged bool `json:"not_judged,omitempty"`
}

// String is the cell as the terminal and Markdown tables show it.
func (c matrixCellDoc) String() string {
	switch {
	case c.Cannot:
		return "cannot"
	case c.DidNotRun:
		return "did not run"
	case c.Missing:
		return "—"
	case c.NotJudged:
		return c.Calls + " · not judged"
	case c.Calls != "":
		return c.Calls + " · " + string(c.Verdict)
	}
	return string(c.Verdict)
}

// matrixExperimentOf is one experiment's part of the matrix, from its runs.
func matrixExperimentOf(x experiment.Experiment, runs []matrixRun) matrixExperimentDoc {
	d := matrixExperimentDoc{Name: x.Name, Summary: x.Summary}
	for _, r := range runs {
		w := matrixWorldDoc{Registry: r.registry, Cannot: r.cannot, Failed: r.failed}
		if r.result != nil {
			w.Run, w.Verdict, w.WallSeconds, w.Seeds = r.result.Scenario, r.result.Verdict, r.result.WallSeconds, seedsOf(r.result)
			if r.result.Meta != nil {
				w.Harness = r.result.Meta.Harness
			}
		}
		d.Worlds = append(d.Worlds, w)
	}
	for _, subject := range subjects(runs) {
		row := matrixRowDoc{Subject: subject}
		for _, r := range runs {
			row.Cells = append(row.Cells, matrixCell(r, subject))
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

// table is the experiment's table: a row per subject, a column per world.
func (d matrixExperimentDoc) table() report.Table {
	t := report.Table{Title: fmt.Sprintf("%s: %s", d.Name, d.Summary), Header: []string{"client set-up"}}
	for _, w := range d.Worlds {
		t.Header = append(t.Header, string(w.Registry))
	}
	for _, r := range d.Rows {
		row := []string{r.Subject}
		for _, c := range r.Cells {
			row = append(row, c.String())
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"a caller's cell: calls failed / sent over the whole run · how many of those failures no check judged (in the recovery after a heal, which the world's rule bounds; elsewhere) · the worst verdict of its checks; the registry's row: how many instances registered again after the outage (where the world records registrations; 0: every registration outlived it, no rejoin to judge) and the worst verdict of its checks; the members' rows: the worst verdict of their checks; not judged where the calls were counted but the world's rules give no band for them; — where the world has no such row"}
	for _, w := range d.Worlds {
		switch {
		case w.Cannot != "":
			t.Notes = append(t.Notes, fmt.Sprintf("%s cannot run it: %s", w.Registry, w.Cannot))
		case w.Failed != "":
			t.Notes = append(t.Notes, fmt.Sprintf("%s did not run: %s", w.Registry, w.Failed))
		case w.Run == "":
			t.Notes = append(t.Notes, fmt.Sprintf("%s: not run (no stored run of it)", w.Registry))
		}
	}
	return t
}

// matrixTable is one experiment's table from its runs.
func matrixTable(x experiment.Experiment, runs []matrixRun) report.Table {
	return matrixExperimentOf(x, runs).table()
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
	for _, r := range runs { // callers counted but not judged, after the judged rows
		if r.result == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(r.result.Series)) {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// matrixCell is one world's cell of a row.
func matrixCell(r matrixRun, subject string) matrixCellDoc {
	switch {
	case r.cannot != "":
		return matrixCellDoc{Cannot: true}
	case r.failed != "":
		return matrixCellDoc{DidNotRun: true}
	case r.result == nil:
		return matrixCellDoc{Missing: true}
	}
	var cs []report.Check
	for _, c := range r.result.Checks {
		if c.Subject == subject {
			cs = append(cs, c)
		}
	}
	s, counted := r.result.Series[subject]
	if len(cs) == 0 && !counted {
		if again, ok := registeredAgain(r.result, subject); ok {
			// the registry's checks were left unjudged (a rule that allows either), its count was not
			return matrixCellDoc{Calls: again, NotJudged: true}
		}
		return matrixCellDoc{Missing: true}
	}
	if len(cs) == 0 {
		okN, fail := s.Total()
		return matrixCellDoc{Calls: fmt.Sprintf("%d/%d failed", fail, okN+fail), NotJudged: true}
	}
	cell := matrixCellDoc{Verdict: report.RunVerdict(cs)}
	if v := r.result.Verdict; v == report.Invalid || v == report.Inconclusive {
		cell.Verdict = v // a run whose gates failed judged nothing, whatever its checks say
	}
	switch {
	case len(r.result.Runs) > 1:
		cell.Calls = overRuns(r.result, subject, cs)
	case counted:
		okN, fail := s.Total()
		cell.Calls = fmt.Sprintf("%d/%d failed", fail, okN+fail) + unjudgedText(r.result.Metrics, subject)
	default:
		cell.Calls, _ = registeredAgain(r.result, subject)
	}
	return cell
}

// registeredAgain is the registry's count of instances that registered
// again after the outage ("3 registered again"), where the run has it.
func registeredAgain(res *report.Result, subject string) (string, bool) {
	n, ok := res.Metrics["rejoin.registrations"]
	if !ok || subject != anyregistry.SubjectRegistry {
		return "", false
	}
	return fmt.Sprintf("%.0f registered again", n), true
}

// overRuns is a cell of repeated runs: the median of the subject's failures
// with their range (a caller's), and in how many of the valid runs every
// one of its checks held in its band.
func overRuns(res *report.Result, subject string, cs []report.Check) string {
	n, held := 0, -1
	for _, c := range cs {
		if c.Stats == nil || c.Stats.InBand == nil {
			continue
		}
		n = max(n, c.Stats.Runs)
		if held < 0 || *c.Stats.InBand < held {
			held = *c.Stats.InBand
		}
	}
	out := ""
	if st, ok := res.MetricStats[subject+".fail"]; ok && st.Runs > 0 {
		out = fmt.Sprintf("%s failed (median of %d runs, %s–%s)", report.Num(float64(st.Median)), st.Runs, report.Num(float64(st.Min)), report.Num(float64(st.Max)))
		n = max(n, st.Runs)
	}
	if held >= 0 {
		if out != "" {
			out += " · "
		}
		out += fmt.Sprintf("every check in band in ≥ %d of %d runs", held, n)
	}
	return out
}

// unjudgedText says how many of a caller's counted failures no check judged
// (the neutral judge's <caller>.fail_recovery and .fail_not_judged
// metrics), so that a cell's count never stands under a verdict that did
// not cover it; "" when every failure was judged (or the run predates the
// metrics).
func unjudgedText(m report.Metrics, subject string) string {
	out := ""
	if n := m[subject+".fail_recovery"]; n > 0 {
		out += fmt.Sprintf(" · %.0f in the recovery, not judged", n)
	}
	if n := m[subject+".fail_not_judged"]; n > 0 {
		out += fmt.Sprintf(" · %.0f not judged", n)
	}
	return out
}

// seedsOf lists the seeds of a result's runs (its one seed for a single run).
func seedsOf(r *report.Result) []int64 {
	if len(r.Runs) == 0 {
		return []int64{r.Seed}
	}
	out := make([]int64, len(r.Runs))
	for i, run := range r.Runs {
		out[i] = run.Seed
	}
	return out
}
