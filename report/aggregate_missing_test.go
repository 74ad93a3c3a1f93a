package report

import (
	"math"
	"slices"
	"testing"
)

// TestAMetricNoRunMeasuredIsAWordNotNaN: a metric every run left missing
// (NaN: a figure the registry does not export) prints "—" over the runs.
func TestAMetricNoRunMeasuredIsAWordNotNaN(t *testing.T) {
	res := over(math.NaN(), math.NaN(), math.NaN())
	for _, tb := range res.Tables {
		for _, row := range tb.Rows {
			if row[0] == "latency_s" && !slices.Equal(row[1:], []string{"—", "—", "—", "—", "0"}) {
				t.Errorf("metric measured in no run: row %q", row)
			}
			for _, cell := range row {
				if cell == "NaN" {
					t.Errorf("table %q prints NaN: %q", tb.Title, row)
				}
			}
		}
	}
}

// TestACheckNoRunMeasuredSaysSo: over runs that all left a check without
// a measurement, its measured text is words, not "median NaN".
func TestACheckNoRunMeasuredSaysSo(t *testing.T) {
	res := over(math.NaN(), math.NaN(), math.NaN())
	if c := res.Checks[0]; c.MeasuredText != "— (measured in none of 3 runs)" || c.Verdict != Invalid {
		t.Errorf("measured %q, verdict %s", c.MeasuredText, c.Verdict)
	}
}
