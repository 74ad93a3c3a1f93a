package main

import (
	"testing"

	"sdchaos/history"
	"sdchaos/report"
)

func TestStaleWords(t *testing.T) {
	const clean, dirty = "abc (git in the working directory)", "abc " + history.Uncommitted + " (git in the working directory)"
	result := func(basis, conclusion string, m *history.Meta) *report.Result {
		r := report.NewResult("demo")
		r.AddCheck(report.Band("latency", 0, 10, " s").From(basis).Judge(1))
		r.Conclude(conclusion)
		r.Meta = m
		return r
	}
	tests := []struct {
		name    string
		stored  *report.Result
		harness string
		want    bool
	}{
		{"the same words, made from a commit", result("b", "c", &history.Meta{Harness: clean}), clean, false},
		{"a basis reworded", result("b0", "c", &history.Meta{Harness: clean}), clean, true},
		{"a conclusion reworded (the judge's timings in it)", result("b", "c0", &history.Meta{Harness: clean}), clean, false},
		{"made with uncommitted changes, judged now from a commit", result("b", "c", &history.Meta{Harness: dirty}), clean, true},
		{"made with uncommitted changes, judged now with them too", result("b", "c", &history.Meta{Harness: dirty}), dirty, false},
		{"re-judged with uncommitted changes", result("b", "c", &history.Meta{Harness: clean, Rejudged: &history.Rejudge{Harness: dirty}}), clean, true},
		{"made dirty, re-judged from a commit", result("b", "c", &history.Meta{Harness: dirty, Rejudged: &history.Rejudge{Harness: clean}}), clean, false},
	}
	now := result("b", "c", nil)
	for _, tc := range tests {
		if got := staleWords(tc.stored, now, tc.harness); got != tc.want {
			t.Errorf("%s: staleWords = %v, want %v", tc.name, got, tc.want)
		}
	}
}
