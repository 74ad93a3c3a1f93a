package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Formats lists the output formats Render accepts.
var Formats = []string{"table", "markdown", "json", "csv"}

// Render writes r to w in format "table", "markdown", "json" or "csv" (the metrics).
func Render(w io.Writer, r *Result, format string) error {
	switch format {
	case "table":
		return renderText(w, r, false)
	case "markdown":
		return renderText(w, r, true)
	case "json":
		return RenderJSON(w, r)
	case "csv":
		return RenderCSV(w, r)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// RenderJSON writes r as one indented JSON object.
func RenderJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

func renderText(w io.Writer, r *Result, md bool) error {
	p := &printer{w: w, md: md}
	p.heading(1, Header(r))
	p.line(fmt.Sprintf("seed %d · %s", r.Seed, paramLine(r.Params)))
	for _, t := range r.Tables {
		p.table(t)
	}
	p.table(checksTable(r.Checks))
	if len(r.Gates) > 0 {
		p.table(gatesTable(r.Gates))
	}
	if len(r.Runs) > 0 {
		p.table(runsTable(r.Runs))
	}
	p.heading(2, "Conclusion")
	for _, c := range r.Conclusion {
		p.line(c)
	}
	for _, name := range r.FileNames {
		file := cmp.Or(r.OutName, r.Scenario) + "." + name
		if p.md {
			file = "[" + file + "](" + file + ")"
		}
		p.line("written beside this report with --out: " + file)
	}
	p.line(VerdictLine(r))
	if r.WallSeconds > 0 && r.TimelineSeconds > 0 {
		p.line(fmt.Sprintf("wall time %.1f s for a %.1f s timeline (%.2f×)",
			r.WallSeconds, r.TimelineSeconds, r.WallSeconds/r.TimelineSeconds))
	} else if r.WallSeconds > 0 {
		p.line(fmt.Sprintf("wall time %.1f s", r.WallSeconds))
	}
	return p.err
}

// Header is the report's first line: the scenario, its title and, when the
// run's metadata names it, the server it ran on with its version.
func Header(r *Result) string {
	h := fmt.Sprintf("%s — %s", r.Scenario, r.Title)
	if r.Meta != nil && r.Meta.Server != "" {
		h += " — on " + r.Meta.Server
	}
	return h
}

// VerdictLine is the report's last line: the run's verdict and which
// checks are reproduced, differ from the article, are outside or invalid.
func VerdictLine(r *Result) string {
	counts := fmt.Sprintf("%d reproduced, %d differ from the article, %d outside, %d invalid (of %d checks)",
		len(r.With(Reproduced)), len(r.With(Differs)), len(r.With(Outside)), len(r.With(Invalid)), len(r.Checks))
	if n := len(r.With(Inconclusive)); n > 0 {
		counts = strings.Replace(counts, " invalid", fmt.Sprintf(" invalid, %d inconclusive", n), 1)
	}
	switch r.Verdict {
	case Invalid:
		why := names(r.With(Invalid))
		for _, g := range r.Gates {
			if !g.OK {
				why = strings.TrimPrefix(why+"; gate: "+g.Name, "; ")
			}
		}
		return "INVALID: the run cannot judge — " + counts + "; invalid: " + why
	case Inconclusive:
		return "INCONCLUSIVE: " + counts + "; inconclusive: " + names(r.With(Inconclusive))
	case Outside:
		return "NOT REPRODUCED: " + counts + "; outside: " + names(r.With(Outside))
	case Differs:
		return "REPRODUCED, ARTICLE DIFFERS: " + counts + "; differ: " + names(r.With(Differs))
	}
	return "REPRODUCED: " + counts
}

func names(cs []Check) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return strings.Join(out, "; ")
}

// verdictWord is the verdict as shown in the checks table.
func verdictWord(v Verdict) string {
	if v == Reproduced {
		return string(v)
	}
	return strings.ToUpper(string(v))
}

func gatesTable(gs []Gate) Table {
	t := Table{Title: "Validity gates (a failed gate makes the run invalid)", Header: []string{"gate", "measured", "limit", "ok"}}
	for _, g := range gs {
		ok := "ok"
		if !g.OK {
			ok = "FAILED"
		}
		t.Rows = append(t.Rows, []string{g.Name, g.Measured, g.Limit, ok})
	}
	return t
}

func runsTable(rs []RunSummary) Table {
	t := Table{Title: "Runs", Header: []string{"seed", "verdict", "wall s", "invalid because", "retried"}}
	for _, r := range rs {
		retry := ""
		if r.Retry {
			retry = "yes"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(r.Seed), string(r.Verdict), fmt.Sprintf("%.1f", r.WallS), strings.Join(r.Invalid, "; "), retry})
	}
	return t
}

func checksTable(cs []Check) Table {
	t := Table{Title: "Checks", Header: []string{"check", "article", "agrees if", "measured", "band", "verdict"}}
	n := 0
	for _, c := range cs {
		v := verdictWord(c.Verdict)
		if c.Cause != "" {
			n++
			v += fmt.Sprintf(" [%d]", n)
			t.Notes = append(t.Notes, fmt.Sprintf("[%d] %s: %s", n, c.Name, c.Cause))
		}
		t.Rows = append(t.Rows, []string{c.Name, c.Article, c.agreeText(), c.MeasuredText, c.Band, v})
	}
	return t
}

func paramLine(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return strings.Join(parts, " ")
}

type printer struct {
	w   io.Writer
	md  bool
	err error
}

func (p *printer) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}

func (p *printer) heading(level int, s string) {
	if p.md {
		p.printf("%s %s\n\n", strings.Repeat("#", level), s)
		return
	}
	p.printf("== %s\n", s)
}

func (p *printer) line(s string) {
	if p.md {
		p.printf("%s\n\n", s)
		return
	}
	p.printf("%s\n", s)
}

func (p *printer) table(t Table) {
	if p.err != nil {
		return
	}
	p.printf("\n")
	if t.Title != "" {
		if p.md {
			p.heading(3, t.Title)
		} else {
			p.printf("%s\n", t.Title)
		}
	}
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	}
	if p.md {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	tbl := tablewriter.NewTable(p.w, opts...)
	tbl.Header(toAny(t.Header)...)
	if err := tbl.Bulk(t.Rows); err != nil {
		p.err = err
		return
	}
	if err := tbl.Render(); err != nil {
		p.err = err
		return
	}
	if p.md {
		p.printf("\n")
	}
	for _, n := range t.Notes {
		p.line(n)
	}
	if !p.md {
		p.printf("\n")
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// RenderTable writes one table as a terminal table, or as markdown when md.
func RenderTable(w io.Writer, t Table, md bool) error {
	p := &printer{w: w, md: md}
	p.table(t)
	return p.err
}
