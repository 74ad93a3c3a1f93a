package report

import (
	"fmt"
	"math"
	"sdchaos/history"
	"sort"
	"strings"
	"time"
)

// Seconds returns the number of per-second columns of a timeline of length d.
func Seconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// BadSeconds counts the seconds in [from, to) that do not hold exactly
// due[i] ok and no failure, and describes the first such second (or the
// range when none).
func BadSeconds(s Series, due []int, from, to int) (int, string) {
	to = min(to, len(s.OK), len(due))
	bad, first := 0, ""
	for i := max(from, 0); i < to; i++ {
		if s.OK[i] != due[i] || s.Fail[i] != 0 {
			if bad == 0 {
				first = fmt.Sprintf("s%d: %d/%d (due %d)", i, s.OK[i], s.Fail[i], due[i])
			}
			bad++
		}
	}
	switch {
	case bad > 0:
		return bad, fmt.Sprintf("%d bad, first %s", bad, first)
	case from >= to:
		return 0, "no second in range"
	}
	return 0, fmt.Sprintf("%d/0 in s%d–s%d", due[max(from, 0)], max(from, 0), to-1)
}

// FirstFailure returns the first failed (or unknown) op of caller, by scheduled time.
func FirstFailure(ops []history.Op, caller string) (history.Op, bool) {
	for _, op := range ops {
		if op.Caller == caller && op.Outcome != history.OK {
			return op, true
		}
	}
	return history.Op{}, false
}

// Count counts the ops of caller scheduled in [from, to) and the failed
// (or unknown) ones among them.
func Count(ops []history.Op, caller string, from, to time.Duration) (n, failed int) {
	return countBy(ops, caller, from, to, func(op history.Op) time.Duration { return op.Scheduled })
}

// CountStarted counts the ops of caller that started in [from, to) and the
// failed (or unknown) ones among them: for a caller whose view changes the
// moment a fault heals (a watch delivers at once), a call late on its
// schedule saw the world of when it started, not of when it was due.
func CountStarted(ops []history.Op, caller string, from, to time.Duration) (n, failed int) {
	return countBy(ops, caller, from, to, func(op history.Op) time.Duration { return op.Start })
}

// CountEnded counts the ops of caller that ended in [from, to) and the
// failed (or unknown) ones among them: a fault at from cannot explain a
// failure of a call that was over before it, whenever that call was due.
func CountEnded(ops []history.Op, caller string, from, to time.Duration) (n, failed int) {
	return countBy(ops, caller, from, to, func(op history.Op) time.Duration { return op.End })
}

func countBy(ops []history.Op, caller string, from, to time.Duration, at func(history.Op) time.Duration) (n, failed int) {
	for _, op := range ops {
		if op.Caller != caller || at(op) < from || at(op) >= to {
			continue
		}
		n++
		if op.Outcome != history.OK {
			failed++
		}
	}
	return n, failed
}

// AddSeriesMetrics sets <name>.ok and <name>.fail from a series.
func (m Metrics) AddSeriesMetrics(name string, s Series) {
	ok, fail := s.Total()
	m[name+".ok"], m[name+".fail"] = float64(ok), float64(fail)
}

// Pct returns 100·a/b (NaN when b is 0).
func Pct(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return 100 * float64(a) / float64(b)
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ShortErr keeps the last part of a long wrapped error ("…: context deadline exceeded").
func ShortErr(e string) string {
	if i := strings.LastIndex(e, ": "); i >= 0 && len(e) > 60 {
		return e[i+2:]
	}
	return e
}

// JoinNums formats numbers with Num, comma-separated.
func JoinNums(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = Num(x)
	}
	return strings.Join(parts, ", ")
}

// BinomialBand returns p ± (4σ + slack) for n trials, clamped to [0, 1],
// and false when there is no trial (nothing to judge).
func BinomialBand(p float64, n int, slack float64) (lo, hi float64, ok bool) {
	if n <= 0 {
		return 0, 0, false
	}
	sigma := math.Sqrt(p * (1 - p) / float64(n))
	return math.Max(0, p-4*sigma-slack), math.Min(1, p+4*sigma+slack), true
}

// Resembles returns which of the policies' per-second series the series of
// name matches in the most seconds (same ok and fail counts), and in how
// many of them. Ties go to the first policy listed.
func Resembles(series map[string]Series, name string, policies []string) (best string, same, total int) {
	s := series[name]
	total = len(s.OK)
	for _, p := range policies {
		ps, n := series[p], 0
		for i := 0; i < total && i < len(ps.OK); i++ {
			if ps.OK[i] == s.OK[i] && ps.Fail[i] == s.Fail[i] {
				n++
			}
		}
		if best == "" || n > same {
			best, same = p, n
		}
	}
	return best, same, total
}

// WindowMax returns the most xs holds within k buckets of any bucket (the
// largest sum over 2k + 1 neighbouring buckets, fewer at the ends): what
// another reading of the same counts may put in one bucket when the two
// can disagree by up to k buckets on where a count falls.
func WindowMax(xs []float64, k int) float64 {
	best := 0.0
	for i := range xs {
		sum := 0.0
		for j := max(0, i-k); j <= min(len(xs)-1, i+k); j++ {
			sum += xs[j]
		}
		best = max(best, sum)
	}
	return best
}
