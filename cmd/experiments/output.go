package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"sdchaos/history"
	"sdchaos/htmlreport"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// prepareOut creates dir (if set) and proves it writable before the run.
func prepareOut(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return scenarios.Usagef("--out %s: cannot create directory: %v", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-test-*")
	if err != nil {
		return scenarios.Usagef("--out %s: directory is not writable: %v", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeOut writes into dir (if set) <name>.md, <name>.json, the files the
// result attached (<name>.<file>), the saved histories of its valid
// runs (<name>.history.jsonl.gz, or <name>.seed<S>.history.jsonl.gz for
// repeated runs) and its page, <name>.html (up: the pages above it).
func writeOut(dir string, rr *repeated, up []htmlreport.Link) error {
	if dir == "" {
		return nil
	}
	res := rr.result
	res.OutName = rr.name
	if err := attachPlots(rr); err != nil {
		return err
	}
	for _, f := range []struct{ ext, format string }{{".md", "markdown"}, {".json", "json"}} {
		path := filepath.Join(dir, rr.name+f.ext)
		if err := writeFile(path, func(w io.Writer) error { return report.Render(w, res, f.format) }); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	for _, name := range res.FileNames {
		path := filepath.Join(dir, rr.name+"."+name)
		if err := os.WriteFile(path, res.Files[name], 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := writeHistories(dir, rr); err != nil {
		return err
	}
	return writeRunPage(dir, rr, up)
}

// historySuffix ends the name of every saved history.
const historySuffix = ".history.jsonl.gz"

func writeHistories(dir string, rr *repeated) error {
	for _, s := range rr.histories {
		name := rr.name
		if len(rr.histories) > 1 {
			name = fmt.Sprintf("%s.seed%d", rr.name, s.header.Seed)
		}
		path := filepath.Join(dir, name+historySuffix)
		if err := writeFile(path, func(w io.Writer) error { return history.WriteHistory(w, s.header, s.history) }); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// writeJUnit writes the results' checks as JUnit XML to path (if set).
func writeJUnit(path string, results []*report.Result) error {
	if path == "" {
		return nil
	}
	if err := writeFile(path, func(w io.Writer) error { return report.RenderJUnit(w, results) }); err != nil {
		return scenarios.Usagef("--junit %s: %v", path, err)
	}
	return nil
}
