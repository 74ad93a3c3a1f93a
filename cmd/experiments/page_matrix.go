package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"sdchaos/htmlreport"
	"sdchaos/report"
)

// matrixJSON and matrixPage are the matrix's files in its directory.
const (
	matrixJSON = "matrix.json"
	matrixPage = "matrix.html"
)

// loadMatrix reads a directory's matrix.json.
func loadMatrix(dir string) (matrixDoc, error) {
	var d matrixDoc
	b, err := os.ReadFile(filepath.Join(dir, matrixJSON))
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%s is not a matrix's JSON: %w", filepath.Join(dir, matrixJSON), err)
	}
	return d, nil
}

// writeMatrixPage writes dir/matrix.html: per experiment, its figure and
// its table, each world's heading linked to the page of its run.
func writeMatrixPage(dir string, doc matrixDoc, up []htmlreport.Link) error {
	set := matrixSet(dir, doc)
	set.Up = up
	path := filepath.Join(dir, matrixPage)
	if err := writeFile(path, func(w io.Writer) error { return htmlreport.WriteSet(w, set) }); err != nil {
		return fmt.Errorf("matrix: writing %s: %w", path, err)
	}
	return nil
}

// matrixSet is the page of the matrix stored in dir.
func matrixSet(dir string, doc matrixDoc) htmlreport.Set {
	set := htmlreport.Set{Kind: "matrix", Title: "The registries side by side",
		Lead: []string{"Each experiment was written once and run on every world named; each world judged it by its own rules. A row is a client set-up (or the registry, or the members), a column a registry; a caller's cell gives its calls failed over the whole run and the worst verdict of its checks. A column's heading opens that run's page."}}
	var vs []*report.Result
	for _, d := range doc.Experiments {
		for _, w := range d.Worlds {
			switch {
			case w.Verdict != "":
				vs = append(vs, &report.Result{Verdict: w.Verdict})
			case w.Failed != "":
				vs = append(vs, &report.Result{Verdict: report.Invalid}) // a world that did not run judged nothing
			}
		}
		set.Sections = append(set.Sections, matrixSection(dir, d))
	}
	if len(vs) > 0 {
		set.Verdict, set.VerdictText = worstVerdict(vs), fmt.Sprintf("the worst of its runs' verdicts (%s)", verdictCounts(vs))
	}
	set.Command = doc.Command
	set.Files = existingLinks(dir, []htmlreport.Link{{Href: "matrix.md", Note: "the tables as Markdown"}, {Href: matrixJSON, Note: "the matrix as JSON"}})
	return set
}

// matrixSection is one experiment's part of the page.
func matrixSection(dir string, d matrixExperimentDoc) htmlreport.Section {
	s := htmlreport.Section{ID: d.Name, Title: d.Name}
	base := d.Name + ".matrix"
	files := map[string][]byte{}
	for _, ext := range []string{".svg", ".png"} {
		if b, err := os.ReadFile(filepath.Join(dir, base+ext)); err == nil {
			files["matrix"+ext] = b
		}
	}
	s.Figures = htmlreport.Figures([]string{"matrix.svg", "matrix.png"}, files, func(string) string {
		return d.Name + ": the share of each client set-up's calls that failed, per registry, for the set-ups that run on two or more (each world's own clients: the table below)"
	})
	t := d.table()
	g := htmlreport.Grid{Caption: t.Title, Notes: t.Notes, Header: textCells(t.Header...)}
	for i, w := range d.Worlds {
		if w.Run != "" && exists(filepath.Join(dir, w.Run+pageExt)) {
			g.Header[i+1].Href = w.Run + pageExt
		}
	}
	for _, r := range d.Rows {
		cells := []htmlreport.Cell{{Text: r.Subject}}
		for _, c := range r.Cells {
			cell := htmlreport.Cell{Verdict: c.Verdict, Text: c.Calls}
			if c.Cannot || c.DidNotRun || c.Missing || c.NotJudged {
				cell = htmlreport.Cell{Text: c.String()}
			}
			cells = append(cells, cell)
		}
		g.Rows = append(g.Rows, cells)
	}
	s.Grids = []htmlreport.Grid{g}
	return s
}
