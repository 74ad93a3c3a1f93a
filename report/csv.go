package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// RenderCSV writes r's metrics as CSV: a header (scenario, metric, value)
// and one line per metric in name order; a value that was not measured is
// empty.
func RenderCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"scenario", "metric", "value"})
	for _, k := range r.Metrics.Names() {
		_ = cw.Write([]string{r.Scenario, k, csvFloat(r.Metrics[k])})
	}
	cw.Flush()
	return cw.Error()
}

// csvFloat formats v in full precision, empty when it is not finite.
func csvFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// AttachCSV attaches r as CSV files: one per table (<table-slug>.csv: its
// header and rows, notes left out), checks.csv (one line per check),
// series.csv (caller, second, ok, fail, unknown) and metrics.csv; with
// --out each is written beside the report as <scenario>.<file>.
func (r *Result) AttachCSV() error {
	seen := map[string]int{}
	for i, t := range r.Tables {
		slug := Slug(t.Title)
		if slug == "" {
			slug = fmt.Sprintf("table-%d", i+1)
		}
		if seen[slug]++; seen[slug] > 1 {
			slug = fmt.Sprintf("%s-%d", slug, seen[slug])
		}
		b, err := tableCSV(t)
		if err != nil {
			return fmt.Errorf("table %q as CSV: %w", t.Title, err)
		}
		r.Attach(slug+".csv", b)
	}
	b, err := tableCSV(r.checksCSV())
	if err != nil {
		return fmt.Errorf("checks as CSV: %w", err)
	}
	r.Attach("checks.csv", b)
	if b, err = r.seriesCSV(); err != nil {
		return fmt.Errorf("series as CSV: %w", err)
	}
	r.Attach("series.csv", b)
	var m bytes.Buffer
	if err := RenderCSV(&m, r); err != nil {
		return fmt.Errorf("metrics as CSV: %w", err)
	}
	r.Attach("metrics.csv", m.Bytes())
	return nil
}

func tableCSV(t Table) ([]byte, error) {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(t.Header)
	_ = cw.WriteAll(t.Rows)
	return b.Bytes(), cw.Error()
}

// checksCSV is one row per check: its claim, measurement, band and verdict.
func (r *Result) checksCSV() Table {
	t := Table{Header: []string{"check", "article", "measured", "measured_text", "band", "band_lo", "band_hi", "unit", "verdict", "cause", "agree_lo", "agree_hi", "agree_basis"}}
	for _, c := range r.Checks {
		t.Rows = append(t.Rows, []string{c.Name, c.Article, csvFloat(float64(c.Measured)), c.MeasuredText, c.Band,
			csvFloat(float64(c.BandLo)), csvFloat(float64(c.BandHi)), strings.TrimSpace(c.Unit), string(c.Verdict), c.Cause,
			csvPtr(c.AgreeLo), csvPtr(c.AgreeHi), c.AgreeBasis})
	}
	return t
}

// seriesCSV is every caller's per-second counts, one line per second.
func (r *Result) seriesCSV() ([]byte, error) {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"caller", "second", "ok", "fail", "unknown"})
	for _, name := range SortedKeys(r.Series) {
		s := r.Series[name]
		for i := range s.OK {
			unknown := 0
			if i < len(s.Unknown) {
				unknown = s.Unknown[i]
			}
			_ = cw.Write([]string{name, strconv.Itoa(i), strconv.Itoa(s.OK[i]), strconv.Itoa(s.Fail[i]), strconv.Itoa(unknown)})
		}
	}
	cw.Flush()
	return b.Bytes(), cw.Error()
}

// maxSlug bounds a slug's length.
const maxSlug = 60

// Slug turns a title into a file-name part: lower-case letters and digits,
// other runs of characters as one "-", at most 60 characters, cut at a "-".
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(title) {
		switch {
		case c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		default:
			dash = true
		}
	}
	s := b.String()
	if len(s) > maxSlug {
		if i := strings.LastIndexByte(s[:maxSlug+1], '-'); i > maxSlug/2 {
			return s[:i]
		}
		return s[:maxSlug]
	}
	return s
}

// csvPtr formats an optional number (empty when absent).
func csvPtr(p *float64) string {
	if p == nil {
		return ""
	}
	return csvFloat(*p)
}
