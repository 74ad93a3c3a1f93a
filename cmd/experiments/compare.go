package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// compare is `experiments compare OLD NEW`: a benchstat-like table of the
// checks' measurements, old against new, with a Mann–Whitney U test where
// both sides have at least minCompareRuns runs.
// With --html FILE it also writes the comparison as a page.
func compare(args []string, stdout io.Writer) error {
	page := ""
	if len(args) > 0 {
		if v, ok := strings.CutPrefix(args[0], "--html="); ok {
			page, args = v, args[1:]
		} else if args[0] == "--html" {
			if len(args) < 2 {
				return scenarios.Usagef("compare: --html needs a file")
			}
			page, args = args[1], args[2:]
		}
	}
	if len(args) != 2 {
		return scenarios.Usagef("compare: want two arguments, OLD and NEW (result directories or JSON files from --out), after an optional --html FILE")
	}
	old, err := loadResults(args[0])
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	cur, err := loadResults(args[1])
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	rows, err := renderComparison(old, cur, stdout)
	if page != "" {
		if perr := writeComparePage(page, resultsDir(args[0]), resultsDir(args[1]), rows); perr != nil {
			return fmt.Errorf("compare: %w", perr)
		}
	}
	return err
}

// compareWithBaseline compares fresh results with a baseline directory;
// with out set it also writes out/compare.html.
func compareWithBaseline(dir, out string, results []*report.Result, stdout io.Writer) error {
	old, err := loadResults(dir)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	cur := map[string]*report.Result{}
	for _, r := range results {
		cur[r.Scenario] = r
	}
	rows, err := renderComparison(old, cur, stdout)
	if out != "" {
		if perr := writeComparePage(filepath.Join(out, "compare.html"), dir, out, rows); perr != nil {
			return fmt.Errorf("baseline: %w", perr)
		}
	}
	return err
}

// The thresholds of a comparison: a check is flagged when its samples
// differ at alpha (Mann–Whitney U, which needs at least 4 runs a side to
// ever reach p < 0.05) and its median moved by at least minEffect of the
// old median (or of the band's width, when that is larger): statistically
// significant is not the same as large.
const (
	minCompareRuns = 4
	minEffect      = 0.10
	bandEffect     = 0.05
)

// comparison is one check compared.
type comparison struct {
	key, check     string
	oldMed, newMed float64
	nOld, nNew     int
	p              float64
	tested         bool
	flagged        bool
	unit           string
}

// renderComparison prints the comparison and returns its rows.
func renderComparison(old, cur map[string]*report.Result, stdout io.Writer) ([]comparison, error) {
	var rows []comparison
	for _, key := range sortedNames(cur) {
		o, ok := old[key]
		if !ok {
			continue
		}
		for _, c := range cur[key].Checks {
			rows = append(rows, compareCheck(key, c, o.Samples["check:"+c.Name], cur[key].Samples["check:"+c.Name]))
		}
	}
	t := comparisonTable(rows)
	if err := report.RenderTable(stdout, t, false); err != nil {
		return rows, err
	}
	flagged := 0
	for _, r := range rows {
		if r.flagged {
			flagged++
		}
	}
	fmt.Fprintf(stdout, "%d checks compared; %d moved significantly (p < %.2f and at least the larger of %.0f %% of the old median and %.0f %% of the band)\n",
		len(rows), flagged, benchmath.DefaultThresholds.CompareAlpha, 100*minEffect, 100*bandEffect)
	if flagged > 0 {
		return rows, errNotReproduced
	}
	return rows, nil
}

func compareCheck(key string, c report.Check, old, cur []float64) comparison {
	r := comparison{key: key, check: c.Name, unit: c.Unit, nOld: len(old), nNew: len(cur), p: math.NaN()}
	r.oldMed, _, _ = report.MedianCI(old)
	r.newMed, _, _ = report.MedianCI(cur)
	if len(old) < minCompareRuns || len(cur) < minCompareRuns {
		return r
	}
	th := &benchmath.DefaultThresholds
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(old, th), benchmath.NewSample(cur, th))
	r.p, r.tested = cmp.P, true
	effect := minEffect * math.Abs(r.oldMed)
	if w := float64(c.BandHi - c.BandLo); !math.IsNaN(w) && !math.IsInf(w, 0) {
		effect = math.Max(effect, bandEffect*w)
	}
	r.flagged = cmp.P < cmp.Alpha && math.Abs(r.newMed-r.oldMed) >= effect && effect > 0
	return r
}

func comparisonTable(rows []comparison) report.Table {
	t := report.Table{Title: "Checks, old against new (medians over runs)",
		Header: []string{"run", "check", "old", "new", "change", "p (Mann–Whitney)", "runs old/new", ""}}
	for _, r := range rows {
		p := fmt.Sprintf("need ≥ %d runs a side", minCompareRuns)
		if r.tested {
			p = fmt.Sprintf("%.3f", r.p)
		}
		mark := ""
		if r.flagged {
			mark = "MOVED"
		}
		t.Rows = append(t.Rows, []string{r.key, r.check, medianText(r.oldMed, r.unit), medianText(r.newMed, r.unit),
			change(r.oldMed, r.newMed), p, fmt.Sprintf("%d/%d", r.nOld, r.nNew), mark})
	}
	return t
}

// medianText prints a median over runs, "—" when no run measured it.
func medianText(v float64, unit string) string {
	if math.IsNaN(v) {
		return report.NotMeasured
	}
	return report.Num(v) + " " + unit
}

func change(old, cur float64) string {
	switch {
	case math.IsNaN(old) || math.IsNaN(cur):
		return "—"
	case old == 0:
		return fmt.Sprintf("%+g", cur-old)
	}
	return fmt.Sprintf("%+.1f %%", 100*(cur-old)/math.Abs(old))
}

// loadResults reads results from a JSON file or from every result JSON of
// a directory (summary.json excluded), keyed by file name (scenario or
// scenario--variant).
func loadResults(path string) (map[string]*report.Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, scenarios.Usagef("%v", err)
	}
	files := []string{path}
	if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.json")); err != nil {
			return nil, err
		}
	}
	out := map[string]*report.Result{}
	for _, f := range files {
		if filepath.Base(f) == "summary.json" {
			continue
		}
		r, err := loadResult(f)
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = r
	}
	if len(out) == 0 {
		return nil, scenarios.Usagef("%s holds no result JSON", path)
	}
	return out, nil
}

func loadResult(path string) (*report.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, scenarios.Usagef("%v", err)
	}
	var r report.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, scenarios.Usagef("%s is not a result JSON: %v", path, err)
	}
	if r.Scenario == "" {
		return nil, scenarios.Usagef("%s is not a result JSON (no scenario)", path)
	}
	return &r, nil
}

func sortedNames(m map[string]*report.Result) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
