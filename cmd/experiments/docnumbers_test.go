package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// A number a teaching page quotes from a run is tied to where results/
// holds it by a comment right after it:
//
//	clear fails **1.424 s**<!--r cache-on-failure check:clear: first failure after the outage--> after the kill
//	… **1424 ms**<!--r cache-on-failure check:clear: first failure after the outage ×1000-->
//	… the verdict is **differs**<!--r replication-lag verdict-->
//
// The reference names a report (results/<name>.json, "baseline/<name>" for
// results/baseline) and a key: metric:<name>, check:<name> (its measured
// value), band_lo:<name>, band_hi:<name>, verdict:<check name>, verdict
// (the run's), wall_s or timeline_s (the run's wall time and timeline),
// param:<flag> (a numeric parameter of the run). An optional "×k" multiplies the stored value (ms from s,
// % from a share). The quoted number must be the stored one rounded to the
// decimals it shows; a verdict must be the word before the comment. A run
// whose verdict is outside or invalid is no evidence: only its verdict may
// be quoted. The
// test below reads every page that uses them, so a regenerated results/
// that moves a number fails until the page says what the run printed.
var docRef = regexp.MustCompile(`([-−]?[0-9][0-9  ,]*(?:\.[0-9]+)?|[A-Za-z]+)\s*(?:%|ms|s|min|MiB|KiB)?\**\s*<!--r ([^ ]+) ([^>]*?)-->`)

// docPages are the pages whose numbers are tied to results/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/learn/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../../docs/findings.md", "../../docs/eureka.md"} {
		if _, err := os.Stat(p); err == nil {
			pages = append(pages, p)
		}
	}
	return pages
}

// taggedPages are every page that may tie a number to results/: the
// teaching pages, the README, every page of docs/ and results/' READMEs.
func taggedPages(t *testing.T) []string {
	t.Helper()
	var pages []string
	for _, glob := range []string{"../../README.md", "../../docs/*.md", "../../docs/learn/*.md", "../../results/*/README.md"} {
		ps, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, ps...)
	}
	return pages
}

func TestTeachingPagesQuoteWhatTheRunsPrinted(t *testing.T) {
	results := map[string]*report.Result{}
	n := 0
	for _, page := range taggedPages(t) {
		text := readFile(t, page)
		refs := docRef.FindAllStringSubmatch(text, -1)
		for _, m := range refs {
			res, ok := results[m[2]]
			if !ok {
				r, err := loadResult(filepath.Join("../../results", m[2]+".json"))
				if err != nil {
					t.Errorf("%s: %v", filepath.Base(page), err)
					continue
				}
				res, results[m[2]] = r, r
			}
			if err := quoteMatches(m[1], res, strings.TrimSpace(m[3])); err != nil {
				t.Errorf("%s: %q <!--r %s %s-->: %v", filepath.Base(page), m[1], m[2], m[3], err)
			}
			if (res.Verdict == report.Outside || res.Verdict == report.Invalid) && strings.TrimSpace(m[3]) != "verdict" {
				t.Errorf("%s: %q <!--r %s %s--> quotes a run whose verdict is %s: an outside or invalid run is no evidence (quote its verdict, not its numbers)",
					filepath.Base(page), m[1], m[2], m[3], res.Verdict)
			}
			n++
		}
	}
	if n < 100 {
		t.Errorf("only %d tagged numbers found", n)
	}
}

// quoteMatches checks a quoted number (or word) against key in res.
func quoteMatches(quoted string, res *report.Result, key string) error {
	scale := 1.0
	if i := strings.LastIndex(key, " ×"); i >= 0 {
		k, err := strconv.ParseFloat(key[i+len(" ×"):], 64)
		if err != nil {
			return fmt.Errorf("bad scale in %q", key)
		}
		key, scale = key[:i], k
	}
	switch key {
	case "verdict":
		return sameWord(quoted, string(res.Verdict))
	case "wall_s":
		return sameNumber1(quoted, res.WallSeconds*scale)
	case "timeline_s":
		return sameNumber1(quoted, res.TimelineSeconds*scale)
	}
	kind, name, ok := strings.Cut(key, ":")
	if !ok {
		return fmt.Errorf("unknown key %q", key)
	}
	if kind == "param" {
		v, ok := res.Params[name].(float64)
		if !ok {
			return fmt.Errorf("no numeric parameter %q", name)
		}
		return sameNumber1(quoted, v*scale)
	}
	if kind == "verdict" {
		c, ok := findCheck(res, name)
		if !ok {
			return fmt.Errorf("no check %q", name)
		}
		return sameWord(quoted, string(c.Verdict))
	}
	v, err := storedValue(res, kind, name)
	if err != nil {
		return err
	}
	return sameNumber1(quoted, v*scale)
}

func findCheck(res *report.Result, name string) (report.Check, bool) {
	for _, c := range res.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return report.Check{}, false
}

func storedValue(res *report.Result, kind, name string) (float64, error) {
	if kind == "metric" {
		v, ok := res.Metrics[name]
		if !ok {
			return 0, fmt.Errorf("no metric %q", name)
		}
		return v, nil
	}
	c, ok := findCheck(res, name)
	if !ok {
		return 0, fmt.Errorf("no check %q", name)
	}
	switch kind {
	case "check":
		return float64(c.Measured), nil
	case "band_lo":
		return float64(c.BandLo), nil
	case "band_hi":
		return float64(c.BandHi), nil
	}
	return 0, fmt.Errorf("unknown key kind %q", kind)
}

func sameWord(quoted, stored string) error {
	if !strings.EqualFold(quoted, stored) {
		return fmt.Errorf("the page says %q, results/ holds %q", quoted, stored)
	}
	return nil
}

// sameNumber1 compares a quoted number with the stored value rounded to
// the decimals the quote shows.
func sameNumber1(quoted string, v float64) error {
	clean := strings.NewReplacer(" ", "", " ", "", ",", "", "−", "-").Replace(quoted)
	q, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		return fmt.Errorf("the quote %q is not a number", quoted)
	}
	dec := 0
	if i := strings.IndexByte(clean, '.'); i >= 0 {
		dec = len(clean) - i - 1
	}
	p := math.Pow(10, float64(dec))
	if math.Round(v*p) != math.Round(q*p) {
		return fmt.Errorf("the page says %s, results/ holds %g", quoted, v)
	}
	return nil
}

func TestDocRefSyntax(t *testing.T) {
	res := report.NewResult("demo")
	res.Metrics["clear.fail"] = 263
	res.AddCheck(report.Band("first failure", 0, 2, "s").Judge(1.42399))
	res.Finish()
	tests := []struct {
		quote, key string
		ok         bool
	}{
		{"263", "metric:clear.fail", true},
		{"1.424", "check:first failure", true},
		{"1424", "check:first failure ×1000", true},
		{"1.43", "check:first failure", false},
		{"reproduced", "verdict", true},
		{"differs", "verdict:first failure", false},
		{"2", "band_hi:first failure", true},
		{"263", "metric:nothing", false},
	}
	for _, tc := range tests {
		if err := quoteMatches(tc.quote, res, tc.key); (err == nil) != tc.ok {
			t.Errorf("%q against %s: %v", tc.quote, tc.key, err)
		}
	}
	m := docRef.FindStringSubmatch("fails **1.424 s**<!--r cache-on-failure check:clear: first failure after the outage--> after")
	if m == nil || m[1] != "1.424" || m[2] != "cache-on-failure" || m[3] != "check:clear: first failure after the outage" {
		t.Errorf("docRef parsed %q", m)
	}
}

// TestLessonCommandsParse: every `go run ./cmd/experiments <scenario> …`
// a teaching page tells the reader to run names a scenario and flags the
// command accepts (parsed and validated as a run would be, not run).
func TestLessonCommandsParse(t *testing.T) {
	cmdLine := regexp.MustCompile("(?m)^go run \\./cmd/experiments ([a-z0-9-]+)([^#\\n]*)")
	n := 0
	for _, page := range docPages(t) {
		for _, m := range cmdLine.FindAllStringSubmatch(readFile(t, page), -1) {
			spec, err := lookup(m[1])
			if err != nil {
				t.Errorf("%s: %q: %v", filepath.Base(page), m[0], err)
				continue
			}
			if _, _, _, err := scenarios.Parse(spec, strings.Fields(m[2])); err != nil {
				t.Errorf("%s: %q: %v", filepath.Base(page), m[0], err)
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d commands found in the teaching pages", n)
	}
}
