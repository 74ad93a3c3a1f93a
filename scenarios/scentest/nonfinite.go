package scentest

import (
	"fmt"
	"strings"
	"unicode"

	"sdchaos/report"
)

// NonFinite returns where a result's prose — table cells and notes, the
// checks' measurements and causes, the conclusion — prints a number as NaN
// or Inf: a figure that was not measured must be said in words.
func NonFinite(res *report.Result) []string {
	var out []string
	see := func(where, s string) {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
			if w == "NaN" || w == "Inf" {
				out = append(out, fmt.Sprintf("%s: %q", where, s))
				return
			}
		}
	}
	for _, t := range res.Tables {
		for _, row := range t.Rows {
			for _, cell := range row {
				see("table "+t.Title, cell)
			}
		}
		for _, n := range t.Notes {
			see("note of "+t.Title, n)
		}
	}
	for _, c := range res.Checks {
		see("check "+c.Name, c.MeasuredText+" "+c.Cause)
	}
	for _, c := range res.Conclusion {
		see("conclusion", c)
	}
	return out
}
