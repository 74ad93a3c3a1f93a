package scenarios

import (
	"fmt"
	"sort"
	"time"

	"sdchaos/report"
)

// allOK reports whether every second in [from, to) has exactly due[i] ok
// and no failure, and describes the worst second otherwise.
func allOK(s report.Series, due []int, from, to int) (bool, string) {
	to = min(to, len(s.OK), len(due))
	for i := max(from, 0); i < to; i++ {
		if s.OK[i] != due[i] || s.Fail[i] != 0 {
			return false, fmt.Sprintf("s%d: %d/%d (due %d)", i, s.OK[i], s.Fail[i], due[i])
		}
	}
	if from >= to {
		return true, "no second in range"
	}
	return true, fmt.Sprintf("%d/0 in s%d–s%d", due[from], from, to-1)
}

// firstFailure returns the first failed (or unknown) op of caller, by scheduled time.
func firstFailure(ops []report.Op, caller string) (report.Op, bool) {
	for _, op := range ops {
		if op.Caller == caller && op.Outcome != report.OK {
			return op, true
		}
	}
	return report.Op{}, false
}

// countAfter counts ops of caller with the given outcome scheduled at or after t.
func countAfter(ops []report.Op, caller string, t time.Duration, o report.Outcome) int {
	n := 0
	for _, op := range ops {
		if op.Caller == caller && op.Scheduled >= t && op.Outcome == o {
			n++
		}
	}
	return n
}

// addSeriesMetrics sets <name>.ok and <name>.fail from a series.
func addSeriesMetrics(m report.Metrics, name string, s report.Series) {
	ok, fail := s.Total()
	m[name+".ok"], m[name+".fail"] = float64(ok), float64(fail)
}

// pct returns 100·a/b (0 when b is 0).
func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// sorted returns a sorted copy of ss.
func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}
