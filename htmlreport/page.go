package htmlreport

import (
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"path"
	"strings"

	"sdchaos/report"
)

//go:embed templates/*.html templates/style.css
var files embed.FS

// pages holds the parsed templates: the shared layout and one body per
// kind of page.
var pages = template.Must(template.New("pages").Funcs(funcs).ParseFS(files, "templates/*.html"))

// style is the inline style sheet of every page.
var style = func() template.CSS {
	b, err := files.ReadFile("templates/style.css")
	if err != nil {
		panic(err)
	}
	return template.CSS(b)
}()

var funcs = template.FuncMap{
	"badge":       badge,
	"verdictKey":  verdictKey,
	"verdictLine": report.VerdictLine,
	"causeLabel":  causeLabel,
	"verdictHead": func(r *report.Result) string { h, _ := splitVerdict(r); return h },
	"verdictRest": func(r *report.Result) string { _, t := splitVerdict(r); return t },
}

// splitVerdict splits a run's verdict line into its head ("REPRODUCED,
// ARTICLE DIFFERS") and the counts that follow it.
func splitVerdict(r *report.Result) (head, rest string) {
	line := report.VerdictLine(r)
	if h, t, ok := strings.Cut(line, ": "); ok {
		return h, t
	}
	return line, ""
}

// Link is a link to a sibling file or page (a relative path), with the
// words shown for it and an optional note after it.
type Link struct {
	Text string
	Href string
	Note string
}

// Figure is one figure embedded in a page: its name, the words that
// describe it to a reader who cannot see it, and the image itself.
type Figure struct {
	Name string
	Alt  string
	// Type is the image's media type: image/svg+xml or image/png.
	Type string
	Data []byte
}

// Src is the figure as a data: URI (the page needs no file beside it).
func (f Figure) Src() template.URL {
	return template.URL("data:" + f.Type + ";base64," + base64.StdEncoding.EncodeToString(f.Data))
}

// Figures picks the figures among a run's files (name → content, in the
// order of names): every SVG, and a PNG only where no SVG of the same name
// exists. alt describes each by its name.
func Figures(names []string, files map[string][]byte, alt func(name string) string) []Figure {
	svgs := map[string]bool{}
	for _, n := range names {
		if strings.HasSuffix(n, ".svg") {
			svgs[strings.TrimSuffix(n, ".svg")] = true
		}
	}
	var out []Figure
	for _, n := range names {
		ext := path.Ext(n)
		stem := strings.TrimSuffix(n, ext)
		switch {
		case ext == ".svg":
			out = append(out, Figure{Name: stem, Alt: alt(stem), Type: "image/svg+xml", Data: files[n]})
		case ext == ".png" && !svgs[stem]:
			out = append(out, Figure{Name: stem, Alt: alt(stem), Type: "image/png", Data: files[n]})
		}
	}
	return out
}

// doc is what the layout draws around every body.
type doc struct {
	Title string
	Up    []Link
	Style template.CSS
	Body  string // the name of the body template
	Data  any
}

// write draws one page with the layout.
func write(w io.Writer, title string, up []Link, body string, data any) error {
	d := doc{Title: title, Up: up, Style: style, Body: body, Data: data}
	if err := pages.ExecuteTemplate(w, "layout", d); err != nil {
		return fmt.Errorf("writing the %s page: %w", body, err)
	}
	return nil
}

// badge is the symbol and the word of a verdict: a page says it in
// words, colour only repeats it.
func badge(v report.Verdict) string {
	switch v {
	case report.Reproduced:
		return "✓ reproduced"
	case report.Differs:
		return "≠ differs"
	case report.Outside:
		return "✗ OUTSIDE"
	case report.Invalid:
		return "? invalid"
	case report.Inconclusive:
		return "~ inconclusive"
	case "":
		return ""
	}
	return string(v)
}

// verdictKey is the CSS class of a verdict (a known word, or "other").
func verdictKey(v report.Verdict) string {
	switch v {
	case report.Reproduced, report.Differs, report.Outside, report.Invalid, report.Inconclusive:
		return "v-" + string(v)
	}
	return "v-other"
}

// num formats a number for a page: report.Num, "—" when not finite.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return report.Num(v)
}

// causeLabel introduces the words under a check that is not reproduced.
func causeLabel(v report.Verdict) string {
	switch v {
	case report.Differs:
		return "Why the article differs:"
	case report.Invalid:
		return "Why the run could not judge it:"
	case report.Inconclusive:
		return "Why it is inconclusive:"
	}
	return "Note:"
}
