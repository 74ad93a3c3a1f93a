package main

import (
	"strings"
	"testing"

	"sdchaos/experiment"
	"sdchaos/report"
)

// TestMatrixTableHasARowPerSubjectAndAColumnPerWorld: callers' cells give
// the calls failed and the worst verdict of their checks; a world that
// could not run says so in its column and in a note.
func TestMatrixTableHasARowPerSubjectAndAColumnPerWorld(t *testing.T) {
	res := report.NewResult("x")
	res.Series["keep"] = report.Series{OK: []int{40, 38}, Fail: []int{0, 2}}
	res.AddCheck(report.Exactly("keep: a", 0, "").About("keep").Judge(0), report.Exactly("keep: b", 0, "").About("keep").Judge(2),
		report.Exactly("registry: c", 0, "").About("registry").Judge(0))
	x := experiment.Experiment{Name: "x", Summary: "s"}
	tbl := matrixTable(x, []matrixRun{{registry: "etcd", result: res}, {registry: "eureka", cannot: "no such fault"}})
	want := [][]string{{"keep", "2/80 failed · outside", "cannot"}, {"registry", "reproduced", "cannot"}}
	if len(tbl.Rows) != len(want) || strings.Join(tbl.Header, ",") != "client set-up,etcd,eureka" {
		t.Fatalf("table %+v", tbl)
	}
	for i, row := range want {
		if strings.Join(tbl.Rows[i], "|") != strings.Join(row, "|") {
			t.Errorf("row %d = %q, want %q", i, tbl.Rows[i], row)
		}
	}
	if !strings.Contains(strings.Join(tbl.Notes, "\n"), "eureka cannot run it: no such fault") {
		t.Errorf("notes %q", tbl.Notes)
	}
}
