package report

import (
	"math"
	"sdchaos/history"
	"testing"
	"time"
)

func TestPerSecondBucketsByScheduledTime(t *testing.T) {
	ops := []history.Op{
		// Scheduled in s0 but sent late in s1: still counted in s0.
		{Caller: "a", Scheduled: 999 * time.Millisecond, Start: 1100 * time.Millisecond, Outcome: history.OK},
		{Caller: "a", Scheduled: time.Second, Outcome: history.Fail},
		{Caller: "a", Scheduled: 2 * time.Second, Outcome: history.Unknown},
		{Caller: "a", Scheduled: 3 * time.Second, Outcome: history.OK}, // beyond range
		{Caller: "zz", Scheduled: 0, Outcome: history.OK},              // unknown caller
	}
	s := PerSecond(ops, []string{"a", "b"}, 3)["a"]
	tests := []struct {
		name string
		got  []int
		want []int
	}{
		{"ok", s.OK, []int{1, 0, 0}},
		{"fail", s.Fail, []int{0, 1, 1}},
		{"unknown", s.Unknown, []int{0, 0, 1}},
	}
	for _, tc := range tests {
		for i := range tc.want {
			if tc.got[i] != tc.want[i] {
				t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
				break
			}
		}
	}
	if s.FirstFail() != 1 || s.LastOK() != 0 {
		t.Errorf("FirstFail=%d LastOK=%d", s.FirstFail(), s.LastOK())
	}
	if ok, fail := s.Sum(1, 10); ok != 0 || fail != 2 {
		t.Errorf("Sum(1,10) = %d,%d", ok, fail)
	}
}

func TestBandText(t *testing.T) {
	tests := []struct {
		e    Expect
		want string
	}{
		{Band("b", 0.45, 1.575, " s"), "0.45–1.575 s"},
		{AtMost("m", 2, " ms"), "≤ 2 ms"},
		{AtLeast("l", 99, " %"), "≥ 99 %"},
		{Exactly("e", 0, ""), "= 0"},
		{Yes("y", "succeeds", "fails"), "succeeds"},
	}
	for _, tc := range tests {
		if got := tc.e.Judge(0).Band; got != tc.want {
			t.Errorf("band %q, want %q", got, tc.want)
		}
	}
}

func TestRunVerdict(t *testing.T) {
	r, d, o, i := Check{Verdict: Reproduced}, Check{Verdict: Differs}, Check{Verdict: Outside}, Check{Verdict: Invalid}
	inc := Check{Verdict: Inconclusive}
	tests := []struct {
		cs   []Check
		want Verdict
	}{
		{nil, Invalid},
		{[]Check{r, r}, Reproduced},
		{[]Check{r, d}, Differs},
		{[]Check{d, o, r}, Outside},
		// A definite failure is never hidden by a check that could not judge.
		{[]Check{o, i}, Outside},
		{[]Check{i, o}, Outside},
		{[]Check{r, i}, Invalid},
		{[]Check{d, inc}, Inconclusive},
		{[]Check{inc, i}, Invalid},
		{[]Check{inc, o}, Outside},
	}
	for _, tc := range tests {
		if got := RunVerdict(tc.cs); got != tc.want {
			t.Errorf("RunVerdict(%v) = %s, want %s", tc.cs, got, tc.want)
		}
	}
}

// TestFailedGateMakesTheRunInvalid: only a gate makes the whole run
// invalid, whatever its checks say.
func TestFailedGateMakesTheRunInvalid(t *testing.T) {
	tests := []struct {
		gateOK bool
		checks []Verdict
		want   Verdict
	}{
		{true, []Verdict{Outside, Invalid}, Outside},
		{false, []Verdict{Outside, Invalid}, Invalid},
		{false, []Verdict{Reproduced}, Invalid},
		{true, []Verdict{Reproduced, Differs}, Differs},
	}
	for _, tc := range tests {
		r := NewResult("s")
		r.Gates = []Gate{{Name: "ready", OK: tc.gateOK}}
		for _, v := range tc.checks {
			r.AddCheck(Check{Name: string(v), Verdict: v})
		}
		r.Finish()
		if r.Verdict != tc.want {
			t.Errorf("gate ok %v, checks %v: run %s, want %s", tc.gateOK, tc.checks, r.Verdict, tc.want)
		}
	}
}

func TestStats(t *testing.T) {
	xs := []float64{5, 1, 3, 2, 4}
	if Median(xs) != 3 || Percentile(xs, 99) != 5 || Percentile(xs, 50) != 3 {
		t.Errorf("median %v p99 %v p50 %v", Median(xs), Percentile(xs, 99), Percentile(xs, 50))
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) not NaN")
	}
	if Num(2.5) != "2.5" || Num(40) != "40" || Num(1.23456) != "1.235" {
		t.Errorf("Num: %s %s %s", Num(2.5), Num(40), Num(1.23456))
	}
}
