package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sdchaos/htmlreport"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// indexPage is the name of a results directory's front page.
const indexPage = "index.html"

// sourceTitles are the source documents the scenarios reproduce, by the
// name their scenarios give (Spec.Article up to its section number).
var sourceTitles = map[string]string{
	"article 47":     "When the registry is unreachable: split brain, network partitions, and how long the client cache holds (bigywater.tech, microservices 47)",
	"article 40":     "A minimal registry: data structure, lease, heartbeat and expiry (bigywater.tech, microservices 40)",
	"Nacos article":  "Protecting services while the registry jitters, and the decisions taken (an incident report on Nacos)",
	"Eureka article": "Eureka failover explained: cache, peer replication and self-preservation in practice",
}

// sourceOf is the document a scenario's source names ("article 47.1" →
// "article 47", "Eureka article 2.2" → "Eureka article", "Nacos article /
// 47.3" → "Nacos article").
func sourceOf(article string) string {
	first, _, _ := strings.Cut(article, "/")
	words := strings.Fields(first)
	switch n := len(words); {
	case n == 2 && words[0] == "article":
		major, _, _ := strings.Cut(words[1], ".")
		return "article " + major
	case n > 1 && strings.Trim(words[n-1], "0123456789.") == "":
		words = words[:n-1]
	}
	return strings.Join(words, " ")
}

// storedRun is one result stored in a directory, by its file name.
type storedRun struct {
	name string
	res  *report.Result
}

// storedRuns reads the result JSON files of dir (not summary.json, not a
// sweep's), in the order 'all --variants' runs them, the rest by name.
func storedRuns(dir string) ([]storedRun, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	byName := map[string]*report.Result{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if !isResultStem(name) {
			continue
		}
		r, err := loadResult(f)
		if err != nil {
			return nil, err
		}
		byName[name] = r
	}
	var out []storedRun
	for _, name := range planOrder() {
		if r, ok := byName[name]; ok {
			out = append(out, storedRun{name, r})
			delete(byName, name)
		}
	}
	for _, name := range sortedKeys(byName) {
		out = append(out, storedRun{name, byName[name]})
	}
	return out, nil
}

// isResultStem reports whether a JSON file's stem is a run's result: not
// the summary of 'all', not a matrix's, not a sweep's.
func isResultStem(stem string) bool {
	return stem != "summary" && stem != "matrix" && !isSweepName(stem)
}

// isSweepName reports whether a JSON file's stem is a sweep's (<scenario>.sweep-<param>).
func isSweepName(stem string) bool { return strings.Contains(stem, ".sweep-") }

// planOrder is every scenario and variant name in the order of 'all --variants'.
func planOrder() []string {
	var out []string
	for _, s := range scenarios.All() {
		out = append(out, s.Name)
		for _, v := range s.Variants {
			out = append(out, s.Name+"--"+v.Name)
		}
	}
	return out
}

// writeIndex writes dir/index.html: the runs stored in dir by source
// document, the sets below it (result directories, sweeps) and its files.
func writeIndex(dir string, up []htmlreport.Link) error {
	set, err := indexSet(dir)
	if err != nil {
		return err
	}
	set.Up = up
	path := filepath.Join(dir, indexPage)
	if err := writeFile(path, func(w io.Writer) error { return htmlreport.WriteSet(w, set) }); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// indexSet is the index page of dir.
func indexSet(dir string) (htmlreport.Set, error) {
	runs, err := storedRuns(dir)
	if err != nil {
		return htmlreport.Set{}, err
	}
	set := htmlreport.Set{Kind: "results", Title: "The runs in " + filepath.Base(filepath.Clean(dir)) + "/"}
	var all []*report.Result
	for _, r := range runs {
		all = append(all, r.res)
	}
	if below := setResults(dir); len(runs) > 0 && len(below) > 0 {
		every := append(slices.Clone(all), below...)
		set.Verdict = worstVerdict(every)
		set.VerdictText = fmt.Sprintf("in all, %s — in this directory %s; in the sets below (their runs and sweep points) %s",
			countLine(every), countLine(all), countLine(below))
	} else if len(runs) > 0 {
		set.Verdict, set.VerdictText = worstVerdict(all), countLine(all)
	}
	if len(runs) > 0 {
		set.Lead = []string{"Every run stored here, by the document it reproduces: its verdict, how many checks reproduced the article, differed from it (with a stated cause), fell outside their band or could not be judged; each name opens the run's full page."}
	}
	set.Sections = append(set.Sections, sourceSections(runs)...)
	if s, ok := subsetSection(dir); ok {
		set.Sections = append(set.Sections, s)
	}
	set.Files = indexFiles(dir)
	set.Meta = commandsOf(runs)
	return set, nil
}

// worstVerdict combines the runs' verdicts as a run combines its checks.
func worstVerdict(rs []*report.Result) report.Verdict {
	var cs []report.Check
	for _, r := range rs {
		cs = append(cs, report.Check{Verdict: r.Verdict})
	}
	return report.RunVerdict(cs)
}

// countLine says how many runs had each verdict.
func countLine(rs []*report.Result) string {
	n := map[report.Verdict]int{}
	for _, r := range rs {
		n[r.Verdict]++
	}
	return fmt.Sprintf("%s: %d reproduced, %d differ from the article, %d outside, %d invalid, %d inconclusive",
		plural(len(rs), "run"), n[report.Reproduced], n[report.Differs], n[report.Outside], n[report.Invalid], n[report.Inconclusive])
}

// sourceSections are the runs grouped by the document they reproduce.
func sourceSections(runs []storedRun) []htmlreport.Section {
	var order []string
	bySource := map[string][][]htmlreport.Cell{}
	for _, r := range runs {
		src := "other runs"
		if spec, err := lookup(scenarioOf(r.res, r.name)); err == nil {
			src = sourceOf(spec.Article)
		}
		if _, ok := bySource[src]; !ok {
			order = append(order, src)
		}
		bySource[src] = append(bySource[src], runRowCells(r))
	}
	var out []htmlreport.Section
	for _, src := range order {
		s := htmlreport.Section{ID: strings.ReplaceAll(src, " ", "-"), Title: src}
		if t := sourceTitles[src]; t != "" {
			s.Text = []string{t}
		}
		s.Grids = []htmlreport.Grid{{Header: textCells("run", "section", "what it shows", "verdict", "checks", "timeline", "wall time"), Rows: bySource[src]}}
		out = append(out, s)
	}
	return out
}

// runRowCells is one run's row in an index.
func runRowCells(r storedRun) []htmlreport.Cell {
	section, what := "", ""
	base, variant, _ := strings.Cut(r.name, "--")
	if spec, err := lookup(scenarioOf(r.res, base)); err == nil {
		section, what = spec.Article, spec.Summary
		if why := variantWhy(spec, variant); why != "" {
			what = "variant: " + why
		}
	}
	if len(r.res.Runs) > 1 {
		what += " (" + plural(requestedRuns(r.res.Runs), "run") + ")"
	}
	return []htmlreport.Cell{{Text: r.name, Href: r.name + pageExt}, {Text: section}, {Text: what},
		{Verdict: r.res.Verdict}, {Text: checkCounts(r.res)}, {Text: secondsOrNone(r.res.TimelineSeconds)},
		{Text: secondsOrNone(r.res.WallSeconds)}}
}

// secondsOrNone is a time in seconds, "—" for none (a virtual clock's run).
func secondsOrNone(s float64) string {
	if s <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f s", s)
}

// checkCounts says how many of a run's checks had each verdict.
func checkCounts(r *report.Result) string {
	var cs []*report.Result
	for _, c := range r.Checks {
		cs = append(cs, &report.Result{Verdict: c.Verdict})
	}
	return verdictCounts(cs)
}

// verdictCounts says how many had each verdict, leaving out none.
func verdictCounts(rs []*report.Result) string {
	n := map[report.Verdict]int{}
	for _, r := range rs {
		n[r.Verdict]++
	}
	var parts []string
	for _, v := range []report.Verdict{report.Reproduced, report.Differs, report.Outside, report.Invalid, report.Inconclusive} {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	return strings.Join(parts, ", ")
}

func textCells(ss ...string) []htmlreport.Cell {
	out := make([]htmlreport.Cell, len(ss))
	for i, s := range ss {
		out[i] = htmlreport.Cell{Text: s}
	}
	return out
}

// subsetSection lists the sets below dir: every directory of results
// (its index) and every sweep (its page).
func subsetSection(dir string) (htmlreport.Section, bool) {
	g := htmlreport.Grid{Header: textCells("set", "what it holds", "verdict")}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if exists(filepath.Join(path, indexPage)) && filepath.Base(path) != pointsDir("") {
			if runs, err := storedRuns(path); err == nil && len(runs) > 0 {
				var rs []*report.Result
				for _, r := range runs {
					rs = append(rs, r.res)
				}
				g.Rows = append(g.Rows, []htmlreport.Cell{{Text: rel + "/", Href: filepath.ToSlash(filepath.Join(rel, indexPage))},
					{Text: countLine(rs)}, {Verdict: worstVerdict(rs)}})
			}
		}
		sweeps, _ := filepath.Glob(filepath.Join(path, "*.sweep-*.json"))
		for _, f := range sweeps {
			if row, ok := sweepRowCells(dir, f); ok {
				g.Rows = append(g.Rows, row)
			}
		}
		return nil
	})
	if len(g.Rows) == 0 {
		return htmlreport.Section{}, false
	}
	return htmlreport.Section{ID: "sets", Title: "Sets of runs: repeated runs, other back-ends, sweeps", Grids: []htmlreport.Grid{g}}, true
}

// setResults are the results of the sets below dir that its sets section
// lists: the runs of every directory of results with an index, and every
// sweep's points.
func setResults(dir string) []*report.Result {
	var out []*report.Result
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == dir {
			return nil
		}
		if exists(filepath.Join(path, indexPage)) && filepath.Base(path) != pointsDir("") {
			runs, _ := storedRuns(path)
			for _, r := range runs {
				out = append(out, r.res)
			}
		}
		sweeps, _ := filepath.Glob(filepath.Join(path, "*.sweep-*.json"))
		for _, f := range sweeps {
			if sr, err := loadSweep(f); err == nil {
				for _, p := range sr.Points {
					out = append(out, &report.Result{Verdict: p.Verdict})
				}
			}
		}
		return nil
	})
	return out
}

// sweepRowCells is a sweep's row in an index (false when its page is missing).
func sweepRowCells(root, jsonPath string) ([]htmlreport.Cell, bool) {
	sr, err := loadSweep(jsonPath)
	page := strings.TrimSuffix(jsonPath, ".json") + pageExt
	if err != nil || !exists(page) {
		return nil, false
	}
	rel, _ := filepath.Rel(root, page)
	relDir, _ := filepath.Rel(root, filepath.Dir(page))
	var vs []*report.Result
	for _, p := range sr.Points {
		vs = append(vs, &report.Result{Verdict: p.Verdict})
	}
	what := fmt.Sprintf("sweep of %s over --%s: %s", sr.Scenario, sr.Param, strings.Join(pointValues(sr), ", "))
	return []htmlreport.Cell{{Text: filepath.ToSlash(relDir) + "/", Href: filepath.ToSlash(rel)}, {Text: what}, {Verdict: worstVerdict(vs)}}, true
}

func pointValues(sr *sweepResult) []string {
	var out []string
	for _, p := range sr.Points {
		out = append(out, p.Value)
	}
	return out
}

// indexFiles links the directory's summary and comparison, and, in the
// repository's results/, the lessons and findings that quote its runs.
func indexFiles(dir string) []htmlreport.Link {
	candidates := []htmlreport.Link{
		{Href: "summary.md", Note: "the summary table as Markdown, with notes on how some rows were made"},
		{Href: "summary.json", Note: "the summary as JSON"},
		{Href: "compare.html", Note: "these runs against a baseline"},
		{Href: matrixPage, Note: "the registries side by side: every experiment's table and figure"},
		{Href: "README.md", Note: "notes on this directory"},
		{Href: "../docs/learn/README.md", Note: "the lessons, which quote these runs"},
		{Href: "../docs/findings.md", Note: "the findings, decision by decision, with these runs as evidence"},
	}
	return existingLinks(dir, candidates)
}

// commandsOf lists the distinct commands that made the runs.
func commandsOf(runs []storedRun) [][2]string {
	var cmds []string
	for _, r := range runs {
		if r.res.Meta != nil {
			if c := strings.Join(r.res.Meta.Command, " "); !slices.Contains(cmds, c) {
				cmds = append(cmds, c)
			}
		}
	}
	var out [][2]string
	for _, c := range cmds {
		out = append(out, [2]string{"made by", c})
	}
	return out
}

// plural is "1 run", "2 runs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
