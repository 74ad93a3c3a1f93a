package main

import (
	"bytes"
	"encoding/json"
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

// The tag test (docnumbers_test.go) checks every number a page ties to
// results/ with <!--r …-->. The tests here check the numbers a page quotes
// without a tag, where the page says which stored run it describes: the
// README's sample output (cache-on-failure's report), each scenario's
// paragraph of docs/plots.md (its results/ run and the variants the
// paragraph names) and each section of results/sweeps/README.md (that
// sweep's JSON and points). Every such number of two digits or more, or
// with decimals, must be a value of that run — a check's measurement or
// band, a metric, a parameter, a table cell, a sweep point — at the
// precision quoted, in the run's unit or as ms of s, % of a share, s of
// ms or s of min. A rule's constant that is not in the run (Eureka's
// 0.85) must be tagged or left out of these paragraphs; what is not a
// number of the run (a flag's value, a file name) belongs in a code span,
// which is skipped.

// quotedNumber is a number as prose writes it: 1.425, 2 692, 26,881, 40.
var quotedNumber = regexp.MustCompile(`(?:^|[^\w.\-/#@=×^])(\d{1,3}(?:[ ,]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:[^\w.]|\.(?:\s|$)|$)`)

// untaggedProse is text without what the tag test checks and what is not
// prose: tagged numbers, code spans, link targets, HTML comments.
func untaggedProse(s string) string {
	s = docRef.ReplaceAllString(s, " ")
	s = regexp.MustCompile("`[^`]*`").ReplaceAllString(s, " ")
	s = regexp.MustCompile(`\]\([^)]*\)`).ReplaceAllString(s, "] ")
	return regexp.MustCompile(`(?s)<!--.*?-->`).ReplaceAllString(s, " ")
}

// checkedNumbers are the quoted numbers the test holds to the stored run:
// every one with decimals, every whole one from 10.
func checkedNumbers(prose string) []string {
	var out []string
	for _, m := range quotedNumber.FindAllStringSubmatch(prose, -1) {
		q := m[1]
		if strings.Contains(q, ".") || len(strings.NewReplacer(" ", "", ",", "").Replace(q)) >= 2 {
			out = append(out, q)
		}
	}
	return out
}

// storedNumbers are every number of the JSON files (their metadata left
// out), and every number written inside their strings (table cells, a
// check's measured text, a parameter's "40s").
func storedNumbers(t *testing.T, files ...string) []float64 {
	t.Helper()
	var out []float64
	inText := regexp.MustCompile(`\d+(?:\.\d+)?`)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case float64:
			out = append(out, x)
		case string:
			for _, m := range inText.FindAllString(strings.ReplaceAll(x, ",", ""), -1) {
				if f, err := strconv.ParseFloat(m, 64); err == nil {
					out = append(out, f)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				if k != "meta" {
					walk(e)
				}
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(v)
	}
	return out
}

// isStored reports whether quoted is one of vals rounded to the decimals
// it shows, in the run's unit or scaled (ms of s, % of a share, s of ms,
// s of min).
func isStored(quoted string, vals []float64) bool {
	clean := strings.NewReplacer(" ", "", ",", "").Replace(quoted)
	q, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		return false
	}
	dec := 0
	if i := strings.IndexByte(clean, '.'); i >= 0 {
		dec = len(clean) - i - 1
	}
	p := math.Pow(10, float64(dec))
	for _, v := range vals {
		for _, k := range []float64{1, 1000, 100, 0.001, 60} {
			if math.Round(v*k*p) == math.Round(q*p) {
				return true
			}
		}
	}
	return false
}

// TestUntaggedNumbersAreTheStoredOnes: see the comment at the top.
func TestUntaggedNumbersAreTheStoredOnes(t *testing.T) {
	t.Run("README sample output", testReadmeSample)
	t.Run("plots.md", testPlotsPage)
	t.Run("sweeps README", testSweepsReadme)
}

// testReadmeSample: the README's "Reading the output" block is
// cache-on-failure's stored report as the table renderer prints it, with
// columns left out (…): every table row has the stored row's cells, and
// every other line is in the rendered report.
func testReadmeSample(t *testing.T) {
	block := readmeSample(t)
	res, err := loadResult("../../results/cache-on-failure.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.Render(&b, res, "table"); err != nil {
		t.Fatal(err)
	}
	rendered := b.String()
	flat := strings.Join(strings.Fields(rendered), " ")
	var para []string
	flush := func() {
		if p := strings.Join(para, " "); p != "" && !strings.Contains(flat, p) {
			t.Errorf("the README's sample output says %q; the stored report does not", p)
		}
		para = nil
	}
	for _, line := range strings.Split(block, "\n") {
		switch trimmed := strings.TrimSpace(line); {
		case strings.HasPrefix(trimmed, "│"):
			flush()
			sameRow(t, trimmed, rendered)
		case trimmed == "" || trimmed == "…":
			flush()
		default:
			para = append(para, strings.Join(strings.Fields(trimmed), " "))
		}
	}
	flush()
}

// readmeSample is the first code block under "## Reading the output".
func readmeSample(t *testing.T) string {
	readme := readFile(t, "../../README.md")
	i := strings.Index(readme, "## Reading the output")
	if i < 0 {
		t.Fatal("README has no \"## Reading the output\"")
	}
	_, rest, ok := strings.Cut(readme[i:], "```\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no code block under \"## Reading the output\"")
	}
	return block
}

// cells splits a rendered table row into its trimmed cells.
func cells(row string) []string {
	parts := strings.Split(strings.Trim(row, "│"), "│")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// sameRow checks a README table row against the rendered row with the
// same first cell: the cells before a "…" are its first ones, those after
// it its last ones.
func sameRow(t *testing.T, row, rendered string) {
	t.Helper()
	want := cells(row)
	for _, line := range strings.Split(rendered, "\n") {
		got := cells(strings.TrimSpace(line))
		if !strings.HasPrefix(strings.TrimSpace(line), "│") || got[0] != want[0] {
			continue
		}
		cut := len(want)
		for i, c := range want {
			if c == "…" {
				cut = i
			}
		}
		head, tail := want[:cut], []string(nil)
		if cut < len(want) {
			tail = want[cut+1:]
		}
		if len(head)+len(tail) > len(got) || (cut == len(want) && len(want) != len(got)) {
			t.Errorf("README row %q: the stored row has %d cells", row, len(got))
			return
		}
		for i, c := range head {
			if got[i] != c {
				t.Errorf("README row %q: cell %d says %q, the stored report %q", want[0], i, c, got[i])
			}
		}
		for i, c := range tail {
			if g := got[len(got)-len(tail)+i]; g != c {
				t.Errorf("README row %q: cell %q, the stored report %q", want[0], c, g)
			}
		}
		return
	}
	t.Errorf("README row %q: no such row in the stored report", row)
}

// testPlotsPage: each paragraph "**<scenario>** — …" of docs/plots.md
// quotes its scenario's stored run (and the variants it names, by name or
// by their flags).
func testPlotsPage(t *testing.T) {
	page := readFile(t, "../../docs/plots.md")
	lead := regexp.MustCompile(`^\*\*([a-z0-9-]+)\*\*`)
	n := 0
	for _, para := range strings.Split(page, "\n\n") {
		m := lead.FindStringSubmatch(strings.TrimSpace(para))
		if m == nil {
			continue
		}
		spec, ok := scenarios.Lookup(m[1])
		if !ok {
			t.Errorf("plots.md: %q is not a scenario", m[1])
			continue
		}
		vals := storedNumbers(t, runFiles(spec, para)...)
		for _, q := range checkedNumbers(untaggedProse(para)) {
			if !isStored(q, vals) {
				t.Errorf("plots.md, %s: %s is not a value of the stored run (tie it to one with <!--r …--> or say where it comes from)", m[1], q)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d untagged numbers checked in plots.md", n)
	}
}

// runFiles are the stored runs a paragraph about spec describes: the
// scenario's own (and its real-Eureka run), and each variant the
// paragraph names or whose flags it quotes.
func runFiles(spec scenarios.Spec, para string) []string {
	var out []string
	for _, f := range []string{"../../results/" + spec.Name + ".json", "../../results/eureka-real/" + spec.Name + ".json"} {
		if _, err := os.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	for _, v := range spec.Variants {
		name := spec.Name + "--" + v.Name
		f := "../../results/" + name + ".json"
		if _, err := os.Stat(f); err == nil && (strings.Contains(para, name) || strings.Contains(para, strings.Join(v.Args, " "))) {
			out = append(out, f)
		}
	}
	return out
}

// notStored are the numbers a section of the sweeps README quotes that no
// stored run holds, each with where it comes from: a rule's constant or a
// count derived from the parameters, or an earlier sweep the text names
// as such.
var notStored = map[string]map[string]string{
	"cache-on-failure-refresh": {
		"75":  "the band's allowance: one send interval (25 ms at 40/s) + 50 ms",
		"320": "the requests sent after the kill: 8 s × 40/s",
	},
	"reregistration-storm-instances": {
		"1 588": "an earlier sweep, with the heavier harness the text describes",
		"1 704": "an earlier sweep, with the heavier harness the text describes",
	},
}

// testSweepsReadme: each section of results/sweeps/README.md quotes the
// sweep its command wrote (--out DIR): the sweep's JSON and its points.
func testSweepsReadme(t *testing.T) {
	page := readFile(t, "../../results/sweeps/README.md")
	out := regexp.MustCompile(`--out results/sweeps/([a-z0-9.-]+)`)
	n := 0
	for _, sec := range strings.Split(page, "\n## ")[1:] {
		m := out.FindStringSubmatch(sec)
		if m == nil {
			t.Errorf("sweeps README: section %q names no --out directory", strings.SplitN(sec, "\n", 2)[0])
			continue
		}
		var files []string
		_ = filepath.WalkDir(filepath.Join("../../results/sweeps", m[1]), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				files = append(files, p)
			}
			return err
		})
		if len(files) == 0 {
			t.Errorf("sweeps README: results/sweeps/%s holds no JSON", m[1])
			continue
		}
		vals := storedNumbers(t, files...)
		body := sec[strings.Index(sec, "\n"):] // the heading names the parameter and the runs
		for _, q := range checkedNumbers(untaggedProse(body)) {
			if _, known := notStored[m[1]][q]; !known && !isStored(q, vals) {
				t.Errorf("sweeps README, %s: %s is not a value of the stored sweep", m[1], q)
			}
			n++
		}
	}
	if n < 40 {
		t.Errorf("only %d untagged numbers checked in the sweeps README", n)
	}
}

// TestQuotedNumbersAndStoredValues: which numbers prose quotes, and how a
// quote matches a stored value.
func TestQuotedNumbersAndStoredValues(t *testing.T) {
	got := checkedNumbers(untaggedProse("fails at 1.425 s (`--refresh 2s`, **0.924 s**<!--r x check:y-->), 2 692 and 26,881 of 3, p99 281 → 128 ms, [fig](a/b12.svg), v2.3"))
	if want := "1.425|2 692|26,881|281|128"; strings.Join(got, "|") != want {
		t.Errorf("checked numbers %q, want %s", got, want)
	}
	vals := []float64{1.424740831, 2692, 26880.5, 0.2814, 0.3}
	for _, tc := range []struct {
		quote string
		ok    bool
	}{
		{"1.425", true}, {"1.424", false}, {"1.42", true}, {"2 692", true}, {"26,881", true},
		{"281", true}, {"230", false}, {"30", true}, {"0.31", false},
	} {
		if isStored(tc.quote, vals) != tc.ok {
			t.Errorf("isStored(%q) = %v, want %v", tc.quote, !tc.ok, tc.ok)
		}
	}
}
