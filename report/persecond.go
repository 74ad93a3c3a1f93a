package report

import (
	"fmt"
	"sdchaos/history"
	"sort"
	"strings"
	"time"
)

// PerSecond buckets ops by the second of their scheduled send time into one
// Series per caller, for seconds [0, seconds). Ops scheduled at or after
// `seconds` are ignored. Callers with no ops still get zero-filled series.
func PerSecond(ops []history.Op, callers []string, seconds int) map[string]Series {
	out := make(map[string]Series, len(callers))
	for _, c := range callers {
		out[c] = Series{OK: make([]int, seconds), Fail: make([]int, seconds), Unknown: make([]int, seconds)}
	}
	for _, op := range ops {
		s, ok := out[op.Caller]
		sec := int(op.Scheduled / time.Second)
		if !ok || op.Scheduled < 0 || sec >= seconds {
			continue
		}
		switch op.Outcome {
		case history.OK:
			s.OK[sec]++
		case history.Unknown:
			s.Unknown[sec]++
			s.Fail[sec]++
		default:
			s.Fail[sec]++
		}
	}
	return out
}

// Total returns the sums of ok and fail (fail includes unknown) over all seconds.
func (s Series) Total() (ok, fail int) {
	return s.Sum(0, len(s.OK))
}

// Sum returns ok and fail summed over seconds [from, to), clamped to the series.
func (s Series) Sum(from, to int) (ok, fail int) {
	from, to = max(from, 0), min(to, len(s.OK))
	for i := from; i < to; i++ {
		ok += s.OK[i]
		fail += s.Fail[i]
	}
	return ok, fail
}

// FirstFail returns the first second with a failure, or -1.
func (s Series) FirstFail() int {
	for i, f := range s.Fail {
		if f > 0 {
			return i
		}
	}
	return -1
}

// LastOK returns the last second with a success, or -1.
func (s Series) LastOK() int {
	for i := len(s.OK) - 1; i >= 0; i-- {
		if s.OK[i] > 0 {
			return i
		}
	}
	return -1
}

// Row is one caller row of a per-second table: the series key and the label shown.
type Row struct {
	Key   string
	Label string
}

// SecondsTable builds the article-style table: one row per caller, one column
// per second with "ok/fail" cells, and a total column. A column whose second
// holds an event gets a "*" in its header and a note naming the faults.
func SecondsTable(title string, rows []Row, series map[string]Series, events history.Events) Table {
	seconds := 0
	for _, r := range rows {
		seconds = max(seconds, len(series[r.Key].OK))
	}
	marked := map[int][]string{}
	for _, e := range events {
		if e.Second() < seconds {
			marked[e.Second()] = append(marked[e.Second()], e.Label)
		}
	}
	header := []string{"caller"}
	for i := 0; i < seconds; i++ {
		h := fmt.Sprintf("s%d", i)
		if len(marked[i]) > 0 {
			h += "*"
		}
		header = append(header, h)
	}
	header = append(header, "ok/fail total")
	t := Table{Title: title, Header: header}
	for _, r := range rows {
		s := series[r.Key]
		cells := []string{r.Label}
		for i := 0; i < seconds; i++ {
			cells = append(cells, cell(s, i))
		}
		ok, fail := s.Total()
		cells = append(cells, fmt.Sprintf("%d/%d", ok, fail))
		t.Rows = append(t.Rows, cells)
	}
	secs := make([]int, 0, len(marked))
	for s := range marked {
		secs = append(secs, s)
	}
	sort.Ints(secs)
	for _, s := range secs {
		t.Notes = append(t.Notes, fmt.Sprintf("* s%d: %s", s, strings.Join(marked[s], "; ")))
	}
	t.Notes = append(t.Notes, "cells are ok/fail per second of scheduled send time; fail includes timed-out (unknown) calls")
	return t
}

func cell(s Series, i int) string {
	if i >= len(s.OK) {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.OK[i], s.Fail[i])
}
