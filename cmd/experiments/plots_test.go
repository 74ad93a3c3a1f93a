package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/figure"
	"sdchaos/figure/figuretest"
)

// TestOutWritesPlotsAndCSV runs ttl-false-removal (no process: fast) with
// --format csv --out: the metrics on stdout as CSV, and beside the report
// its plot as SVG and PNG and one CSV file per table, the series and the
// metrics, all named in the markdown report.
func TestOutWritesPlotsAndCSV(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"ttl-false-removal", "--duration", "60s", "--registry-instances", "100", "--format", "csv", "--out", dir, "--quiet"}
	if err := run(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(rows) < 2 || strings.Join(rows[0], ",") != "scenario,metric,value" || rows[1][0] != "ttl-false-removal" {
		t.Fatalf("stdout is not the metrics as CSV (%v): %q", err, rows)
	}
	md, err := os.ReadFile(filepath.Join(dir, "ttl-false-removal.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"false-removals.svg", "false-removals.png", "false-removals-of-live-instances.csv", "checks.csv", "series.csv", "metrics.csv"} {
		name := "ttl-false-removal." + f
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("missing %s: %v", name, err)
		}
		if !bytes.Contains(md, []byte(name)) {
			t.Errorf("the report does not name %s", name)
		}
	}
	// The run's page: its figure embedded, its files linked; the report
	// does not name it (the Markdown is what it was).
	page, err := os.ReadFile(filepath.Join(dir, "ttl-false-removal.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"data:image/svg", `href="ttl-false-removal.history.jsonl.gz"`, `href="ttl-false-removal.checks.csv"`, "go run ./cmd/experiments ttl-false-removal --registry-instances=100 --duration=1m0s --seed 1"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if bytes.Contains(md, []byte("ttl-false-removal.html")) {
		t.Error("the Markdown report names the page: its output changed")
	}
}

// TestPlotDirRedrawsSavedHistories: 'plot DIR' draws a saved history again.
func TestPlotDirRedrawsSavedHistories(t *testing.T) {
	dir := t.TempDir()
	args := []string{"ttl-false-removal", "--duration", "30s", "--registry-instances", "100", "--out", dir, "--quiet"}
	if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "ttl-false-removal.false-removals.svg")
	if err := os.Remove(svg); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"plot", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(svg); err != nil || !strings.Contains(out.String(), svg) {
		t.Errorf("plot did not redraw %s: %v\n%s", svg, err, out.String())
	}
}

// TestPlotDirRedrawsSweeps: 'plot DIR' draws a sweep's figure again from
// its JSON (a sweep directory holds no history of its own), in the
// colours the scenario gives its curves.
func TestPlotDirRedrawsSweeps(t *testing.T) {
	src := filepath.Join("..", "..", "results", "sweeps", "reregistration-storm-instances", "reregistration-storm.sweep-instances.json")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("no stored sweep: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"plot", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "reregistration-storm.sweep-instances.svg"))
	if err != nil || !strings.Contains(out.String(), "reregistration-storm.sweep-instances.png") {
		t.Fatalf("plot did not redraw the sweep: %v\n%s", err, out.String())
	}
	if !bytes.Contains(svg, []byte(figuretest.Hex(figure.Vermilion))) {
		t.Error("the immediate curve lost the vermilion the scenario gives it")
	}
	if err := run(context.Background(), []string{"plot", t.TempDir()}, io.Discard, io.Discard); err == nil {
		t.Error("plot of a directory with neither a history nor a sweep succeeded")
	}
}
