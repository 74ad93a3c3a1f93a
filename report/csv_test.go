package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"reflect"
	"testing"
)

func csvRows(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, b)
	}
	return rows
}

func TestRenderCSVWritesTheMetrics(t *testing.T) {
	r := NewResult("x")
	r.Metrics["b.fail"], r.Metrics["a.ok"], r.Metrics["c"] = 3, 0.125, math.NaN()
	var b bytes.Buffer
	if err := Render(&b, r, "csv"); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"scenario", "metric", "value"}, {"x", "a.ok", "0.125"}, {"x", "b.fail", "3"}, {"x", "c", ""}}
	if got := csvRows(t, b.Bytes()); !reflect.DeepEqual(got, want) {
		t.Errorf("csv = %q, want %q", got, want)
	}
}

func TestAttachCSVWritesOneFilePerTable(t *testing.T) {
	r := NewResult("x")
	r.AddTable(Table{Title: "Per-second ok/fail (article 47.1: keep 40/0)", Header: []string{"caller", "s0"}, Rows: [][]string{{"keep", "40/0"}, {"a, b", "1/39"}}})
	r.AddTable(Table{Title: "Per-second ok/fail (article 47.1: keep 40/0)", Header: []string{"h"}})
	r.AddTable(Table{Header: []string{"h"}})
	r.Series["keep"] = Series{OK: []int{40, 39}, Fail: []int{0, 1}, Unknown: []int{0, 1}}
	r.Metrics["keep.ok"] = 79
	if err := r.AttachCSV(); err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"per-second-ok-fail-article-47-1-keep-40-0.csv", "per-second-ok-fail-article-47-1-keep-40-0-2.csv", "table-3.csv",
		"checks.csv", "series.csv", "metrics.csv"}
	if !reflect.DeepEqual(r.FileNames, wantNames) {
		t.Errorf("files %q, want %q", r.FileNames, wantNames)
	}
	if got := csvRows(t, r.Files[wantNames[0]]); !reflect.DeepEqual(got, [][]string{{"caller", "s0"}, {"keep", "40/0"}, {"a, b", "1/39"}}) {
		t.Errorf("table CSV %q", got)
	}
	want := [][]string{{"caller", "second", "ok", "fail", "unknown"}, {"keep", "0", "40", "0", "0"}, {"keep", "1", "39", "1", "1"}}
	if got := csvRows(t, r.Files["series.csv"]); !reflect.DeepEqual(got, want) {
		t.Errorf("series CSV %q, want %q", got, want)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Checks": "checks", "N = 1000, per 100 ms: calls / errors": "n-1000-per-100-ms-calls-errors", "—": "",
		"Last heartbeat → gone from Lookup":                                                      "last-heartbeat-gone-from-lookup",
		"The registry's side: what the 3 members received and answered from the heal to the end": "the-registry-s-side-what-the-3-members-received-and-answered",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
