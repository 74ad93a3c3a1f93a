package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sdchaos/htmlreport"
	"sdchaos/report"
)

// loadSweep reads a sweep's JSON (<scenario>.sweep-<param>.json).
func loadSweep(path string) (*sweepResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sr sweepResult
	if err := json.Unmarshal(b, &sr); err != nil {
		return nil, fmt.Errorf("%s is not a sweep's JSON: %w", path, err)
	}
	if sr.Scenario == "" || sr.Param == "" {
		return nil, fmt.Errorf("%s is not a sweep's JSON (no scenario or param)", path)
	}
	return &sr, nil
}

// pointName is the file stem of one point of a sweep.
func pointName(scenario, param, value string) string {
	return fmt.Sprintf("%s--%s=%s", scenario, param, value)
}

// sweepUp links a point's page to its sweep's.
func sweepUp(sr *sweepResult) []htmlreport.Link {
	return []htmlreport.Link{{Text: "the sweep over --" + sr.Param, Href: "../" + sr.baseName() + pageExt}}
}

// writeSweepPage writes <base>.html into dir: the sweep's figure, its
// table with every point linked to its page, and the command.
func writeSweepPage(dir string, sr *sweepResult, up []htmlreport.Link) error {
	set := sweepSet(dir, sr)
	set.Up = up
	path := filepath.Join(dir, sr.baseName()+pageExt)
	if err := writeFile(path, func(w io.Writer) error { return htmlreport.WriteSet(w, set) }); err != nil {
		return fmt.Errorf("sweep: writing %s: %w", path, err)
	}
	return nil
}

// sweepSet is the page of a sweep written into dir.
func sweepSet(dir string, sr *sweepResult) htmlreport.Set {
	base := sr.baseName()
	set := htmlreport.Set{Kind: "sweep", Title: fmt.Sprintf("%s over --%s", sr.Scenario, sr.Param),
		Lead: []string{fmt.Sprintf("The scenario run at each value of --%s (%s); each curve is a headline number's median over the point's valid runs, with its 95 %% interval where a point had at least %d runs, beside its theory and the band of the check that judges it.",
			sr.Param, strings.Join(pointValues(sr), ", "), report.MinRunsForInterval)}}
	var vs []*report.Result
	for _, p := range sr.Points {
		vs = append(vs, &report.Result{Verdict: p.Verdict})
	}
	set.Verdict, set.VerdictText = worstVerdict(vs), fmt.Sprintf("the worst of its %s' verdicts (%s)", plural(len(vs), "point"), verdictCounts(vs))
	if set.Verdict == report.Outside || set.Verdict == report.Invalid {
		set.VerdictText += "; a point that is outside or invalid is no evidence of how the numbers move: its page names the checks that did not hold"
	}
	fig := htmlreport.Section{ID: "figure", Title: "Figure"}
	files := map[string][]byte{}
	for _, ext := range []string{".svg", ".png"} {
		if b, err := os.ReadFile(filepath.Join(dir, base+ext)); err == nil {
			files["sweep"+ext] = b
		}
	}
	fig.Figures = htmlreport.Figures([]string{"sweep.svg", "sweep.png"}, files, func(string) string {
		return fmt.Sprintf("%s: every headline number against --%s", sr.Scenario, sr.Param)
	})
	if len(fig.Figures) > 0 {
		set.Sections = append(set.Sections, fig)
	}
	set.Sections = append(set.Sections, htmlreport.Section{ID: "points", Title: "Every point",
		Text:  []string{"Each column is one value of the flag; its heading opens that point's page (its checks, tables and saved histories)."},
		Grids: []htmlreport.Grid{sweepGrid(dir, sr)}})
	set.Command = sweepCommand(dir, sr)
	set.Files = existingLinks(dir, []htmlreport.Link{
		{Href: base + ".csv", Note: "one line per point and curve"}, {Href: base + ".json", Note: "the sweep as JSON"},
		{Href: base + ".md", Note: "the table as Markdown"}, {Href: base + ".png", Note: "the figure as PNG"}})
	return set
}

// sweepGrid is the sweep's table (as its Markdown), the points' headings
// linked to their pages and their verdicts as verdicts.
func sweepGrid(dir string, sr *sweepResult) htmlreport.Grid {
	t := sr.table()
	g := htmlreport.Grid{Caption: t.Title, Notes: t.Notes, Header: textCells(t.Header...)}
	for i, p := range sr.Points {
		page := filepath.ToSlash(filepath.Join(pointsDir(""), pointName(sr.Scenario, sr.Param, p.Value)+pageExt))
		if exists(filepath.Join(dir, filepath.FromSlash(page))) {
			g.Header[i+2].Href = page
		}
	}
	for r, row := range t.Rows {
		cells := textCells(row...)
		if r == 0 { // the verdict row
			for i := 2; i < len(cells); i++ {
				cells[i] = htmlreport.Cell{Verdict: report.Verdict(row[i])}
			}
		}
		g.Rows = append(g.Rows, cells)
	}
	return g
}

// sweepCommand makes the sweep again into dir.
func sweepCommand(dir string, sr *sweepResult) string {
	words := []string{"go", "run", "./cmd/experiments", "sweep", sr.Scenario, "--param", sr.Param, strings.Join(pointValues(sr), ",")}
	for _, a := range sr.Args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(append(words, "--out", shellQuote(filepath.ToSlash(filepath.Clean(dir)))), " ")
}

// existingLinks keeps the links whose file exists in dir (each shown by its path).
func existingLinks(dir string, ls []htmlreport.Link) []htmlreport.Link {
	var out []htmlreport.Link
	for _, l := range ls {
		if exists(filepath.Join(dir, filepath.FromSlash(l.Href))) {
			if l.Text == "" {
				l.Text = l.Href
			}
			out = append(out, l)
		}
	}
	return out
}
