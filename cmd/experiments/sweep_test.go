package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/scenarios"
)

func TestExpandValues(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"1.5,2, 3", "1.5|2|3"},
		{"1:3:0.5", "1|1.5|2|2.5|3"},
		{"250ms:1s:250ms", "250ms|500ms|750ms|1s"},
		{"500,1000,2000", "500|1000|2000"},
		{"fast,slow", "fast|slow"},
	}
	for _, tc := range tests {
		got, err := expandValues(tc.in)
		if err != nil || strings.Join(got, "|") != tc.want {
			t.Errorf("expandValues(%q) = %q, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", ",", "3:1:1", "1:2:0", "1s:2:1", "0:1000:1"} {
		if got, err := expandValues(bad); err == nil {
			t.Errorf("expandValues(%q) = %q, want an error", bad, got)
		}
	}
}

func TestSweepUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--param", "ttls", "1,2"},
		{"no-such-scenario", "--param", "ttls", "1"},
		{"ttl-false-removal"},
		{"ttl-false-removal", "--param", "nope", "1,2"},
		{"ttl-false-removal", "--param", "seed", "1,2"},
		{"ttl-false-removal", "--param", "ttls"},
		{"ttl-false-removal", "--param", "ttls", "1,2", "--ttls", "3"},
		{"ttl-false-removal", "--param", "ttls", "1,2", "--format", "xml"},
		{"cache-on-failure", "--param", "refresh", "1s,250ms"}, // 250ms < --refresh-timeout: refused before any run
	} {
		err := run(context.Background(), append([]string{"sweep"}, args...), io.Discard, io.Discard)
		if !errors.Is(err, scenarios.ErrUsage) {
			t.Errorf("sweep %q: %v, want a usage error", args, err)
		}
	}
}

// TestTinySweep sweeps ttl-false-removal (no process: fast) over three ttls
// with six runs a point, and checks the CSV on stdout and the files in --out.
func TestTinySweep(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"sweep", "ttl-false-removal", "--param", "ttls", "1,2,3", "--runs", "6", "--duration", "60s",
		"--registry-instances", "200", "--out", dir, "--format", "csv", "--quiet"}
	if err := run(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatalf("sweep: %v\n%s", err, out.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatalf("stdout is not CSV: %v", err)
	}
	if len(rows) != 1+3*2 || rows[1][2] != "1" || rows[1][5] != "false removals, simulation" {
		t.Fatalf("CSV rows %q: want a header and 2 curves × 3 points", rows)
	}
	for _, r := range rows[1:] {
		if r[7] == "" || r[8] == "" || r[9] == "" || r[10] == "" || r[13] != "6" {
			t.Errorf("row %q lacks a median, its interval or the theory over 6 runs", r)
		}
	}
	base := filepath.Join(dir, "ttl-false-removal.sweep-ttls")
	var sr sweepResult
	b, err := os.ReadFile(base + ".json")
	if err != nil || json.Unmarshal(b, &sr) != nil || len(sr.Points) != 3 || len(sr.Curves) != 2 {
		t.Fatalf("sweep JSON: %v, %d points, %d curves", err, len(sr.Points), len(sr.Curves))
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.NewDecoder(bytes.NewReader(svg)).Decode(new(struct{})); err != nil {
		t.Errorf("the sweep's SVG is not XML: %v", err)
	}
	for _, want := range []string{"false removals, simulation", "false removals, real registry", "theory", "median of 6 runs (95 % interval)", "median of 6 runs", "--ttls (s)"} {
		if !bytes.Contains(svg, []byte(">"+want+"<")) {
			t.Errorf("the sweep's plot lacks %q", want)
		}
	}
	for _, f := range []string{base + ".csv", base + ".md", base + ".png", filepath.Join(dir, "points", "ttl-false-removal--ttls=2.json"),
		base + pageExt, filepath.Join(dir, "points", "ttl-false-removal--ttls=2.html")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	page := readFile(t, base+pageExt)
	for _, want := range []string{`href="points/ttl-false-removal--ttls=1.html"`, "data:image/svg", "--param ttls 1,2,3"} {
		if !strings.Contains(page, want) {
			t.Errorf("the sweep's page lacks %q", want)
		}
	}
	if point := readFile(t, filepath.Join(dir, "points", "ttl-false-removal--ttls=2.html")); !strings.Contains(point, `href="../ttl-false-removal.sweep-ttls.html"`) {
		t.Error("a point's page does not link its sweep's")
	}
}

// TestPlotsOfTheSavedResults draws every saved history in results/ (and
// its directories) again, and every sweep's figure from its JSON: the
// plots hold up on real runs, not only on synthetic ones, and every figure
// stored in results/ is the one the code draws now (a change to the
// figures fails here until 'experiments plot' has redrawn them; the SVG is
// compared, the PNG is rendered from the same drawing).
func TestPlotsOfTheSavedResults(t *testing.T) {
	root := filepath.Join("..", "..", "results")
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return err
	})
	if err != nil || len(dirs) == 0 {
		t.Skipf("no saved results: %v", err)
	}
	n := 0
	for _, dir := range dirs {
		n += storedHistoryPlots(t, dir) + storedSweepPlots(t, dir) + storedMatrixPlots(t, dir)
	}
	if n == 0 {
		t.Error("no saved history gave a plot")
	}
}

// storedHistoryPlots redraws the histories of dir that have figures stored
// beside them (a sweep's points have none) and compares each SVG with the
// stored one; it returns how many it drew.
func storedHistoryPlots(t *testing.T, dir string) int {
	groups, err := historyGroups(dir)
	if err != nil {
		return 0
	}
	tmp, n := t.TempDir(), 0
	for _, name := range sortedKeys(groups) {
		if stored, _ := filepath.Glob(filepath.Join(dir, name+".*.svg")); len(stored) == 0 && !strings.Contains(dir, "sweeps") {
			t.Errorf("%s: %s has a saved history but no figure beside it; run 'experiments plot %s'", dir, name, dir)
			continue
		} else if len(stored) == 0 {
			continue
		}
		files, err := plotHistory(tmp, name, groups[name][0])
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, ".svg") {
				sameFigure(t, filepath.Join(dir, f), filepath.Join(tmp, f))
			}
		}
		n += len(files)
	}
	return n
}

// storedSweepPlots draws the figure of every sweep's JSON in dir and
// compares it with the stored one.
func storedSweepPlots(t *testing.T, dir string) int {
	sweeps, _ := filepath.Glob(filepath.Join(dir, "*"+sweepInfix+"*.json"))
	tmp := t.TempDir()
	for _, path := range sweeps {
		copied := filepath.Join(tmp, filepath.Base(path))
		b, err := os.ReadFile(path)
		if err == nil {
			err = os.WriteFile(copied, b, 0o644)
		}
		if err == nil {
			_, err = plotSweep(copied)
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		svg := strings.TrimSuffix(filepath.Base(path), ".json") + ".svg"
		sameFigure(t, filepath.Join(dir, svg), filepath.Join(tmp, svg))
	}
	return len(sweeps)
}

// storedMatrixPlots draws the figures of the matrix stored in dir (none
// without a matrix.json) and compares each with the stored one.
func storedMatrixPlots(t *testing.T, dir string) int {
	tmp := t.TempDir()
	written, err := plotMatrixTo(dir, tmp)
	if err != nil {
		t.Errorf("%s: %v", dir, err)
	}
	for _, f := range written {
		if strings.HasSuffix(f, ".svg") {
			sameFigure(t, filepath.Join(dir, filepath.Base(f)), f)
		}
	}
	return len(written)
}

// sameFigure fails when the stored figure is not the one just drawn.
func sameFigure(t *testing.T, stored, drawn string) {
	t.Helper()
	a, errA := os.ReadFile(stored)
	b, errB := os.ReadFile(drawn)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("%s is not what the code draws from its saved data (%v, %v); redraw it with 'experiments plot %s'", stored, errA, errB, filepath.Dir(stored))
	}
}
