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

func TestCheckVerdicts(t *testing.T) {
	tests := []struct {
		name string
		c    Check
		want Verdict
	}{
		{"in band, no figure", Band("b", 1, 2, "").Judge(2), Reproduced},
		{"outside above", Band("b", 1, 2, "").Judge(2.01), Outside},
		{"NaN is outside", Band("b", 1, 2, "").Judge(math.NaN()), Outside},
		{"at most", AtMost("m", 2, "").Judge(3), Outside},
		{"at least", AtLeast("l", 2, "").Judge(3), Reproduced},
		{"exactly", Exactly("e", 40, "").Judge(40), Reproduced},
		{"yes/no", No("t", "yes", "no").JudgeBool(true), Outside},
		{"figure in band", Band("b", 0, 2, " s").Says(SaysValue("1 s", 1)).Judge(1.5), Reproduced},
		{"figure outside band", Band("b", 0.45, 1.6, " s").Says(SaysValue("< 1 s", 0.025)).Because("x").Judge(1.4), Differs},
		{"range partly outside", Band("b", 0, 16, " s").Says(SaysRange("15–30 s", 15, 30)).Because("x").Judge(3), Differs},
		{"differs needs in band", Band("b", 0, 16, " s").Says(SaysValue("30 s", 30)).Because("x").Judge(17), Outside},
		{"invalid", Band("b", 0, 1, "").Invalid("no tasks"), Invalid},
	}
	for _, tc := range tests {
		if tc.c.Verdict != tc.want {
			t.Errorf("%s: verdict %s, want %s (%+v)", tc.name, tc.c.Verdict, tc.want, tc.c)
		}
		if tc.c.Pass != (tc.want == Reproduced || tc.want == Differs) {
			t.Errorf("%s: pass %v with verdict %s", tc.name, tc.c.Pass, tc.c.Verdict)
		}
	}
	if c := Band("b", 0, 1, " s").Says(SaysValue("5 s", 5)).Judge(0.5); c.Cause == "" {
		t.Error("a differs check without a cause shows no cause")
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
