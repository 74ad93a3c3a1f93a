package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"sdchaos/history"
	"sdchaos/htmlreport"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// pageExt ends the name of every page.
const pageExt = ".html"

// writeRunPage writes <name>.html into dir for a run whose report, figures
// and histories are written there already (writeOut), and, for repeated
// runs, a page per valid run (<name>.seed<S>.html) with that run's figures.
func writeRunPage(dir string, rr *repeated, up []htmlreport.Link) error {
	if err := writeSeedPages(dir, rr); err != nil {
		return err
	}
	return writeRunPageOf(dir, rr.name, rr.result, rr.result.Files, up)
}

// writeRunPageOf writes <name>.html into dir for res, with the figures in
// files (name → content; read from dir when nil); up are the pages above
// it (nil: the index of dir, where there is one).
func writeRunPageOf(dir, name string, res *report.Result, files map[string][]byte, up []htmlreport.Link) error {
	page := runPage(dir, name, res, files)
	page.Up = up
	if up == nil && exists(filepath.Join(dir, indexPage)) {
		page.Up = []htmlreport.Link{{Text: "index of the runs", Href: indexPage}}
	}
	path := filepath.Join(dir, name+pageExt)
	if err := writeFile(path, func(w io.Writer) error { return htmlreport.WriteRun(w, page) }); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeSeedPages writes the page of each valid run of repeated runs, with
// its own figures, beside the page of their statistics.
func writeSeedPages(dir string, rr *repeated) error {
	if len(rr.histories) < 2 || len(rr.runs) != len(rr.histories) {
		return nil
	}
	for i, s := range rr.histories {
		res := rr.runs[i]
		_, cfg, _, err := savedConfig(s.header)
		if err != nil {
			return err
		}
		if err := scenarios.AttachPlots(res, cfg, s.history); err != nil {
			return err
		}
		name := fmt.Sprintf("%s.seed%d", rr.name, s.header.Seed)
		up := []htmlreport.Link{{Text: rr.name + " (all runs)", Href: rr.name + pageExt}}
		if err := writeRunPageOf(dir, name, res, res.Files, up); err != nil {
			return err
		}
	}
	return nil
}

// runPage is the page of the result written as <name>.* in dir: the
// scenario's words, the command that runs it again and the run's sibling
// files that exist in dir.
func runPage(dir, name string, res *report.Result, files map[string][]byte) htmlreport.Run {
	base, variant, _ := strings.Cut(seedPart.ReplaceAllString(name, ""), "--")
	page := htmlreport.Run{Result: res, Name: name}
	spec, err := lookup(scenarioOf(res, base))
	page.Ran, page.EtcdRan = ranLine(spec, err == nil, res)
	if err == nil {
		page.Source, page.Summary, page.Help = spec.Article, spec.Summary, strings.TrimSpace(spec.Help)
		page.Why = variantWhy(spec, variant)
		page.Command = rerunCommand(spec, res, runNet(dir, name, res))
	}
	if len(files) == 0 {
		files = siblingFigures(dir, name, res.FileNames)
	}
	from := "the run's saved history"
	if len(res.Runs) > 1 {
		from = fmt.Sprintf("the saved history of its first valid run (seed %d)", res.Seed)
	}
	page.Figures = htmlreport.Figures(figureNames(files, res.FileNames), files, func(fig string) string {
		return fmt.Sprintf("%s, figure %q, drawn from %s", name, fig, from)
	})
	page.Files = siblingLinks(dir, name, res)
	page.RunLinks = seedLinks(dir, name, res.Runs)
	return page
}

// scenarioOf is the scenario a result belongs to: its own field, cut at a
// variant's "--".
func scenarioOf(res *report.Result, fallback string) string {
	if s, _, _ := strings.Cut(res.Scenario, "--"); s != "" {
		return s
	}
	return fallback
}

// variantWhy is what a named reference variant shows ("" for none).
func variantWhy(spec scenarios.Spec, variant string) string {
	for _, v := range spec.Variants {
		if v.Name == variant {
			return v.Why
		}
	}
	return ""
}

// figureNames orders the figure files: the result's own order, then any
// other drawn beside it, sorted.
func figureNames(files map[string][]byte, order []string) []string {
	out := slices.Clone(order)
	for _, k := range report.SortedKeys(files) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// siblingFigures reads the figures of <name> in dir: those the result
// lists, and any 'experiments plot' drew beside it (<name>.<figure>.svg/png).
func siblingFigures(dir, name string, listed []string) map[string][]byte {
	out := map[string][]byte{}
	matches, _ := filepath.Glob(filepath.Join(dir, globEscape(name)+".*"))
	for _, m := range matches {
		file := strings.TrimPrefix(filepath.Base(m), name+".")
		if ext := filepath.Ext(file); (ext != ".svg" && ext != ".png") || strings.Contains(file, ".seed") {
			continue
		}
		if b, err := os.ReadFile(m); err == nil {
			out[file] = b
		}
	}
	for _, f := range listed {
		if _, ok := out[f]; !ok {
			if b, err := os.ReadFile(filepath.Join(dir, name+"."+f)); err == nil {
				out[f] = b
			}
		}
	}
	return out
}

// globEscape escapes the characters filepath.Match treats specially.
func globEscape(s string) string {
	return regexp.MustCompile(`([*?\[\\])`).ReplaceAllString(s, `\$1`)
}

// siblingLinks links the run's files that exist in dir: its saved history,
// porcupine's page, the report as Markdown and JSON, and its CSV files.
func siblingLinks(dir, name string, res *report.Result) []htmlreport.Link {
	candidates := []htmlreport.Link{
		{Text: name + historySuffix, Note: "the saved history (gzipped JSON lines): 'experiments recheck' judges it again, 'experiments plot' draws it"},
		{Text: name + ".history.html", Note: "porcupine's page of the linearizability check: every operation on a timeline"},
		{Text: name + ".md", Note: "this report as Markdown"},
		{Text: name + ".json", Note: "this report as JSON (the contract CI reads)"},
	}
	for _, f := range res.FileNames {
		if strings.HasSuffix(f, ".csv") {
			candidates = append(candidates, htmlreport.Link{Text: name + "." + f, Note: "a table as CSV"})
		}
	}
	var out []htmlreport.Link
	for _, l := range candidates {
		if exists(filepath.Join(dir, l.Text)) {
			l.Href = l.Text
			out = append(out, l)
		}
	}
	return out
}

// seedLinks links each of repeated runs' page and saved history, where
// they exist in dir.
func seedLinks(dir, name string, runs []report.RunSummary) map[int64][]htmlreport.Link {
	out := map[int64][]htmlreport.Link{}
	for _, r := range runs {
		stem := fmt.Sprintf("%s.seed%d", name, r.Seed)
		if exists(filepath.Join(dir, stem+pageExt)) {
			out[r.Seed] = append(out[r.Seed], htmlreport.Link{Text: "its page", Href: stem + pageExt})
		}
		if exists(filepath.Join(dir, stem+historySuffix)) {
			out[r.Seed] = append(out[r.Seed], htmlreport.Link{Text: "saved history", Href: stem + historySuffix})
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runNet is the network the run used, from the first of its saved
// histories in dir ("" when none is there).
func runNet(dir, name string, res *report.Result) string {
	paths := []string{filepath.Join(dir, name+historySuffix)}
	for _, r := range res.Runs {
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("%s.seed%d%s", name, r.Seed, historySuffix)))
	}
	for _, p := range paths {
		if hdr, err := readHeader(p); err == nil {
			for _, a := range hdr.Args {
				if v, ok := strings.CutPrefix(a, "--net="); ok {
					return v
				}
			}
			return ""
		}
	}
	return ""
}

// readHeader reads the first line of a saved history only.
func readHeader(path string) (history.HistoryHeader, error) {
	var hdr history.HistoryHeader
	fh, err := os.Open(path)
	if err != nil {
		return hdr, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return hdr, err
	}
	return hdr, json.NewDecoder(zr).Decode(&hdr)
}
