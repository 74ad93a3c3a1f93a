package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/experiment"
	"sdchaos/htmlreport"
	"sdchaos/report"
)

// TestMatrixTableHasARowPerSubjectAndAColumnPerWorld: callers' cells give
// the calls failed and the worst verdict of their checks; a world that
// cannot run the experiment, and one whose run failed (not a verdict on
// the registry), says so in its column and in a note.
func TestMatrixTableHasARowPerSubjectAndAColumnPerWorld(t *testing.T) {
	res := report.NewResult("x")
	res.Series["keep"] = report.Series{OK: []int{40, 38}, Fail: []int{0, 2}}
	res.AddCheck(report.Exactly("keep: a", 0, "").About("keep").Judge(0), report.Exactly("keep: b", 0, "").About("keep").Judge(2),
		report.Exactly("registry: c", 0, "").About("registry").Judge(0))
	x := experiment.Experiment{Name: "x", Summary: "s"}
	tbl := matrixTable(x, []matrixRun{{registry: "etcd", result: res}, {registry: "eureka", cannot: "no such fault"},
		{registry: "nacos", failed: "starting: did not open within 6m0s"}})
	want := [][]string{{"keep", "2/80 failed · outside", "cannot", "did not run"}, {"registry", "reproduced", "cannot", "did not run"}}
	if len(tbl.Rows) != len(want) || strings.Join(tbl.Header, ",") != "client set-up,etcd,eureka,nacos" {
		t.Fatalf("table %+v", tbl)
	}
	for i, row := range want {
		if strings.Join(tbl.Rows[i], "|") != strings.Join(row, "|") {
			t.Errorf("row %d = %q, want %q", i, tbl.Rows[i], row)
		}
	}
	if notes := strings.Join(tbl.Notes, "\n"); !strings.Contains(notes, "eureka cannot run it: no such fault") ||
		!strings.Contains(notes, "nacos did not run: starting: did not open within 6m0s") {
		t.Errorf("notes %q", tbl.Notes)
	}
}

// TestMatrixPageLinksEachWorldsRun: the page's column heading opens the
// run's page where it exists, a cell carries its verdict as a verdict, and
// a world that could not run says so in words.
func TestMatrixPageLinksEachWorldsRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x--etcd.html"), []byte("<p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := matrixDoc{Command: "go run ./cmd/experiments matrix x", Experiments: []matrixExperimentDoc{{Name: "x", Summary: "s",
		Worlds: []matrixWorldDoc{{Registry: "etcd", Run: "x--etcd", Verdict: report.Reproduced}, {Registry: "eureka", Cannot: "no such fault"}},
		Rows:   []matrixRowDoc{{Subject: "keep", Cells: []matrixCellDoc{{Calls: "0/80 failed", Verdict: report.Reproduced}, {Cannot: true}}}}}}}
	set := matrixSet(dir, doc)
	g := set.Sections[0].Grids[0]
	if g.Header[1].Href != "x--etcd.html" || g.Header[2].Href != "" {
		t.Errorf("headings %+v", g.Header)
	}
	if c := g.Rows[0][1]; c.Verdict != report.Reproduced || c.Text != "0/80 failed" {
		t.Errorf("etcd cell %+v", c)
	}
	if c := g.Rows[0][2]; c.Text != "cannot" || c.Verdict != "" {
		t.Errorf("eureka cell %+v", c)
	}
	if set.Verdict != report.Reproduced || set.Command != doc.Command {
		t.Errorf("verdict %q command %q", set.Verdict, set.Command)
	}
	var sb strings.Builder
	if err := htmlreport.WriteSet(&sb, set); err != nil || !strings.Contains(sb.String(), "no such fault") {
		t.Errorf("page: %v", err)
	}
}
