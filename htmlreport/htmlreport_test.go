package htmlreport

import (
	"bytes"
	"html"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// sample is a judged result with one check of each kind a page must say in
// words, a table, a gate, an event and a figure.
func sample() *report.Result {
	r := report.NewResult("demo")
	r.Title, r.Seed, r.Params["rate"] = "article 0.1: <b>a demo</b>", 7, 40
	r.AddTable(report.Table{Title: "Per-second ok/fail", Header: []string{"caller", "s0", "s1*"}, Rows: [][]string{{"keep", "40/0", "40/0"}}, Notes: []string{"* s1: kill"}})
	r.AddCheck(
		report.Band("first failure", 0.45, 1.5, " s").Says(report.SaysValue("within 1/40 s", 0.025)).From("refresh + deadline").Because("clientv3 waits for the deadline").Judge(1.4),
		report.Yes("removed every instance", "removed", "kept").Says(report.SaysYes("the registry dropped them")).JudgeBool(true),
		report.AtMost("failures of keep", 0, "").Judge(3),
		report.Exactly("seconds not all ok", 0, "").Invalid("no outage recorded"))
	r.Gates = []report.Gate{{Name: "every fault took effect", OK: false, Measured: "1 failed", Limit: "none"}}
	r.Events = history.Events{{At: 1500 * time.Millisecond, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n1", "n2"}, Label: "SIGKILL etcd n1,n2"}}
	r.Finish()
	return r
}

func render(t *testing.T, run Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteRun(&b, run); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRunPageSaysEveryVerdictInWords(t *testing.T) {
	page := render(t, Run{Result: sample(), Command: "go run ./cmd/experiments demo --seed 7",
		Files: []Link{{Text: "demo.history.jsonl.gz", Href: "demo.history.jsonl.gz"}}})
	for _, want := range []string{
		"≠ differs", "✓ reproduced", "✗ OUTSIDE", "? invalid", // each verdict as a symbol and a word
		"Why the article differs:</strong> clientv3 waits for the deadline", // the cause under the check
		"Why the run could not judge it:</strong> no outage recorded",
		"<td class=\"num\">0.025 s<div class=\"basis\">agrees if = 0.025 s: no tolerance stated", // the article's figure beside ours, and what agrees with it
		"<td class=\"num\">removed</td>",                                                         // a yes/no figure in the check's words
		"✗ FAILED",                                                                               // a failed gate
		"SIGKILL etcd n1,n2", "1.500 s",                                                          // the timeline
		"go run ./cmd/experiments demo --seed 7", "demo.history.jsonl.gz",
		"article 0.1: &lt;b&gt;a demo&lt;/b&gt;", // escaped, never markup
		"<th scope=\"col\">s1*</th>", "* s1: kill",
		"Verdict: INVALID",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestPagesStandAlone: no script, no style sheet or image from outside the
// page; every image is a data: URI.
func TestPagesStandAlone(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>`)
	run := Run{Result: sample(), Figures: Figures([]string{"a.svg", "a.png", "b.png"},
		map[string][]byte{"a.svg": svg, "a.png": {0x89}, "b.png": {0x89}}, func(n string) string { return "figure " + n })}
	var set bytes.Buffer
	if err := WriteSet(&set, Set{Kind: "sweep", Title: "t", Verdict: report.Differs, Sections: []Section{{Title: "s", Figures: run.Figures,
		Grids: []Grid{{Header: []Cell{{Text: "run"}}, Rows: [][]Cell{{{Text: "demo", Href: "demo.html", Verdict: report.Outside}}}}}}}}); err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{"run": render(t, run), "set": set.String()} {
		if strings.Contains(page, "<script") || strings.Contains(page, "<link rel=\"stylesheet\"") {
			t.Errorf("%s page loads a script or a style sheet", name)
		}
		srcs := regexp.MustCompile(`src="([^"]*)"`).FindAllStringSubmatch(page, -1)
		if len(srcs) != 2 {
			t.Errorf("%s page: %d images, want 2 (a.svg, and b.png which has no SVG)", name, len(srcs))
		}
		for _, m := range srcs {
			m[1] = html.UnescapeString(m[1])
			if !strings.HasPrefix(m[1], "data:image/svg+xml;base64,") && !strings.HasPrefix(m[1], "data:image/png;base64,") {
				t.Errorf("%s page: image %.40q is not embedded", name, m[1])
			}
		}
	}
	if !strings.Contains(set.String(), `<a href="demo.html">demo</a> <span class="badge v-outside">✗ OUTSIDE</span>`) {
		t.Errorf("a grid cell lost its link or its verdict:\n%s", set.String())
	}
}

func TestFiguresPreferSVG(t *testing.T) {
	files := map[string][]byte{"x.svg": {1}, "x.png": {2}, "y.png": {3}, "z.csv": {4}}
	got := Figures([]string{"x.svg", "x.png", "y.png", "z.csv"}, files, func(n string) string { return n })
	if len(got) != 2 || got[0].Name != "x" || got[0].Type != "image/svg+xml" || got[1].Name != "y" || got[1].Type != "image/png" {
		t.Errorf("Figures = %+v, want x as SVG and y as PNG", got)
	}
}

func TestCheckRowFigure(t *testing.T) {
	lo, hi, one := 15.0, 30.0, 1.0
	tests := []struct {
		c    report.Check
		want string
	}{
		{report.Check{}, "—"},
		{report.Check{ArticleLo: &lo, ArticleHi: &lo, Unit: "s"}, "15 s"},
		{report.Check{ArticleLo: &lo, ArticleHi: &hi, Unit: "s"}, "15–30 s"},
		{report.Check{ArticleLo: &one, ArticleHi: &one, YesNo: true}, "yes"},
		{report.Check{ArticleLo: &one, ArticleHi: &one, YesNo: true, BandLo: 1, BandHi: 1, Band: "succeeds"}, "succeeds"},
		{report.Check{ArticleLo: &one, ArticleHi: &one, YesNo: true, Measured: 1, MeasuredText: "fails over"}, "fails over"},
	}
	for _, tc := range tests {
		if got := newCheckRow(tc.c).Figure; got != tc.want {
			t.Errorf("figure of %+v = %q, want %q", tc.c, got, tc.want)
		}
	}
	if num(math.NaN()) != "—" || num(math.Inf(1)) != "—" {
		t.Error("a missing number is not shown as —")
	}
}

// TestWhatRanNamesTheServer: a run page names the server and every
// component its metadata stores, and gives the etcd version only where
// etcd ran.
func TestWhatRanNamesTheServer(t *testing.T) {
	r := sample()
	r.Meta = &history.Meta{Etcd: "v3.7.2", World: history.World{Server: "Nacos server 3.1.0",
		Components: []history.Component{{Name: "nacos-client", Role: history.RoleClient, Coordinates: "com.alibaba.nacos:nacos-client", Version: "3.1.1", UsedBy: "Java callers"}}}}
	page := render(t, Run{Result: r, Ran: r.Meta.Server})
	for _, want := range []string{"<strong>Ran:</strong> Nacos server 3.1.0", "<td>Nacos server 3.1.0</td>", "nacos-client (client)", "3.1.1 (com.alibaba.nacos:nacos-client"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	r.Meta.World = history.World{}
	for etcdRan, want := range map[bool]bool{false: false, true: true} {
		if got := strings.Contains(render(t, Run{Result: r, EtcdRan: etcdRan}), "<th scope=\"row\">etcd</th><td>v3.7.2</td>"); got != want {
			t.Errorf("etcd ran %v: the page gives etcd's version %v, want %v", etcdRan, got, want)
		}
	}
}

// TestSharedCauseShownOnce: checks in a row with the same verdict and cause
// show the cause once, after the last, naming how many it explains.
func TestSharedCauseShownOnce(t *testing.T) {
	r := report.NewResult("demo")
	r.AddCheck(report.AtMost("a", 0, "").Because("the same reason").Judge(0),
		report.AtMost("b", 0, "").Because("the same reason").Judge(0))
	for i := range r.Checks {
		r.Checks[i].Verdict, r.Checks[i].Cause = report.Differs, "the same reason"
	}
	r.Finish()
	page := render(t, Run{Result: r})
	if n := strings.Count(page, "the same reason"); n != 1 {
		t.Errorf("the shared cause is shown %d times, want once", n)
	}
	if !strings.Contains(page, "(the 2 checks above) the same reason") {
		t.Error("the shared cause does not say it explains the 2 checks above")
	}
}
