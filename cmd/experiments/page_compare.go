package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/perf/benchmath"

	"sdchaos/htmlreport"
	"sdchaos/report"
)

// resultsDir is the directory of a compare argument (a directory, or a
// result JSON inside one).
func resultsDir(arg string) string {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return filepath.Dir(arg)
	}
	return arg
}

// writeComparePage writes the comparison of the results in oldDir and
// newDir as a page at path: each check, baseline beside candidate, what
// moved said in words, each run linked to its page where there is one.
func writeComparePage(path, oldDir, newDir string, rows []comparison) error {
	set := compareSet(filepath.Dir(path), oldDir, newDir, rows)
	if err := writeFile(path, func(w io.Writer) error { return htmlreport.WriteSet(w, set) }); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// compareSet is the page of a comparison written into dir.
func compareSet(dir, oldDir, newDir string, rows []comparison) htmlreport.Set {
	moved := 0
	for _, r := range rows {
		if r.flagged {
			moved++
		}
	}
	set := htmlreport.Set{Kind: "compare", Title: fmt.Sprintf("%s against %s", filepath.Base(filepath.Clean(newDir)), filepath.Base(filepath.Clean(oldDir))),
		Lead: []string{fmt.Sprintf("Each check's median in the baseline (%s) beside the candidate (%s). A check moved when a Mann–Whitney U test over the runs of both sides gives p < %.2f (it needs at least %d runs a side) and its median moved by at least the larger of %.0f %% of the old median and %.0f %% of the band.",
			oldDir, newDir, benchmath.DefaultThresholds.CompareAlpha, minCompareRuns, 100*minEffect, 100*bandEffect)},
		VerdictText: fmt.Sprintf("%d checks compared; %d moved significantly.", len(rows), moved)}
	g := htmlreport.Grid{Header: textCells("run", "check", "baseline", "candidate", "change", "p (Mann–Whitney)", "runs baseline/candidate", "what moved")}
	for _, r := range rows {
		g.Rows = append(g.Rows, []htmlreport.Cell{
			{Text: r.key, Links: pageLinks(dir, oldDir, newDir, r.key)}, {Text: r.check},
			{Text: report.Num(r.oldMed) + " " + r.unit}, {Text: report.Num(r.newMed) + " " + r.unit},
			{Text: change(r.oldMed, r.newMed)}, {Text: pText(r)}, {Text: fmt.Sprintf("%d/%d", r.nOld, r.nNew)}, movedCell(r)})
	}
	set.Sections = []htmlreport.Section{{ID: "checks", Title: "Checks, baseline against candidate", Grids: []htmlreport.Grid{g}}}
	return set
}

// pageLinks links a run's page in the baseline and in the candidate, where they exist.
func pageLinks(dir, oldDir, newDir, key string) []htmlreport.Link {
	var out []htmlreport.Link
	if h := relPage(dir, oldDir, key); h != "" {
		out = append(out, htmlreport.Link{Text: "baseline", Href: h})
	}
	if h := relPage(dir, newDir, key); h != "" {
		out = append(out, htmlreport.Link{Text: "candidate", Href: h})
	}
	return out
}

// relPage links the page of run key in resDir from dir ("" when there is none).
func relPage(dir, resDir, key string) string {
	page := filepath.Join(resDir, key+pageExt)
	if !exists(page) {
		return ""
	}
	absDir, err1 := filepath.Abs(dir)
	absPage, err2 := filepath.Abs(page)
	rel, err3 := filepath.Rel(absDir, absPage)
	if err1 != nil || err2 != nil || err3 != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

func pText(r comparison) string {
	if !r.tested {
		return fmt.Sprintf("needs ≥ %d runs a side", minCompareRuns)
	}
	return fmt.Sprintf("%.3f", r.p)
}

// movedCell says in words whether and which way a check moved.
func movedCell(r comparison) htmlreport.Cell {
	switch {
	case r.flagged && r.newMed > r.oldMed:
		return htmlreport.Cell{Text: "MOVED UP, " + change(r.oldMed, r.newMed), Strong: true}
	case r.flagged:
		return htmlreport.Cell{Text: "MOVED DOWN, " + change(r.oldMed, r.newMed), Strong: true}
	case !r.tested:
		return htmlreport.Cell{Text: "not tested (too few runs)"}
	case math.IsNaN(r.p):
		return htmlreport.Cell{Text: "—"}
	}
	return htmlreport.Cell{Text: "no significant move"}
}
