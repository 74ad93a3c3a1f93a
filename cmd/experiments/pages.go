package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sdchaos/htmlreport"
	"sdchaos/scenarios"
)

// pages is `experiments pages DIR`: it writes the HTML page of every
// result, sweep and directory of results stored under DIR, from their
// JSON, figures and saved histories, without running or judging anything:
// <name>.html beside each result, <scenario>.sweep-<param>.html beside each
// sweep (its points' pages in points/), index.html in each directory of
// results, and DIR/index.html, the front door that links them all. A
// directory's summary (summary.md, summary.json) gains a row for every run
// stored there that it lacks, so that it lists what the index lists.
func pages(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return scenarios.Usagef("pages: want one argument, a directory written with --out (or results/)")
	}
	root := filepath.Clean(args[0])
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return scenarios.Usagef("pages: %s is not a directory", args[0])
	}
	var dirs []string
	if err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return err
	}); err != nil {
		return fmt.Errorf("pages: %w", err)
	}
	// Deepest first: an index lists the sets below it by their pages.
	for i := len(dirs) - 1; i >= 0; i-- {
		written, err := pagesOf(root, dirs[i])
		if err != nil {
			return fmt.Errorf("pages %s: %w", dirs[i], err)
		}
		for _, f := range written {
			fmt.Fprintln(stdout, f)
		}
	}
	return nil
}

// pagesOf writes the pages of one directory under root and returns their paths.
func pagesOf(root, dir string) ([]string, error) {
	var written []string
	runs, err := storedRuns(dir)
	if err != nil {
		return nil, err
	}
	up := upLinks(root, dir)
	isPoints := filepath.Base(dir) == pointsDir("")
	var pointsUp []htmlreport.Link
	if isPoints {
		if sweeps, _ := filepath.Glob(filepath.Join(dir, "..", "*.sweep-*.json")); len(sweeps) == 1 {
			if sr, err := loadSweep(sweeps[0]); err == nil {
				pointsUp = sweepUp(sr)
			}
		}
	}
	for _, r := range runs {
		runUp := append(append([]htmlreport.Link(nil), up...), htmlreport.Link{Text: "index of the runs", Href: indexPage})
		if isPoints {
			runUp = append(up, pointsUp...)
		}
		if err := writeRunPageOf(dir, r.name, r.res, nil, runUp); err != nil {
			return nil, err
		}
		written = append(written, filepath.Join(dir, r.name+pageExt))
	}
	if err := completeSummary(dir, runs); err != nil {
		return nil, err
	}
	sweeps, _ := filepath.Glob(filepath.Join(dir, "*.sweep-*.json"))
	for _, f := range sweeps {
		sr, err := loadSweep(f)
		if err != nil {
			return nil, err
		}
		if err := writeSweepPage(dir, sr, up); err != nil {
			return nil, err
		}
		written = append(written, filepath.Join(dir, sr.baseName()+pageExt))
	}
	if exists(filepath.Join(dir, matrixJSON)) {
		doc, err := loadMatrix(dir)
		if err != nil {
			return nil, err
		}
		if err := writeMatrixPage(dir, doc, up); err != nil {
			return nil, err
		}
		written = append(written, filepath.Join(dir, matrixPage))
	}
	if hasIndex(root, dir) {
		if err := writeIndex(dir, up); err != nil {
			return nil, err
		}
		written = append(written, filepath.Join(dir, indexPage))
	}
	return written, nil
}

// upLinks are the indexes above dir, from root down, as links relative to dir.
func upLinks(root, dir string) []htmlreport.Link {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return nil
	}
	var out []htmlreport.Link
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		above := filepath.Join(root, filepath.Join(parts[:i]...))
		if !hasIndex(root, above) {
			continue
		}
		href := strings.Repeat("../", len(parts)-i) + indexPage
		out = append(out, htmlreport.Link{Text: filepath.Base(above), Href: href})
	}
	return out
}

// hasIndex reports whether 'pages' writes an index into dir: the root's,
// and every directory of results but a sweep's points.
func hasIndex(root, dir string) bool {
	if filepath.Clean(dir) == filepath.Clean(root) {
		return true
	}
	if filepath.Base(dir) == pointsDir("") {
		return false
	}
	runs, err := storedRuns(dir)
	return err == nil && len(runs) > 0
}
