package report

import (
	"math"
	"testing"
	"time"
)

func TestPerSecondBucketsByScheduledTime(t *testing.T) {
	ops := []Op{
		// Scheduled in s0 but sent late in s1: still counted in s0.
		{Caller: "a", Scheduled: 999 * time.Millisecond, Start: 1100 * time.Millisecond, Outcome: OK},
		{Caller: "a", Scheduled: time.Second, Outcome: Fail},
		{Caller: "a", Scheduled: 2 * time.Second, Outcome: Unknown},
		{Caller: "a", Scheduled: 3 * time.Second, Outcome: OK}, // beyond range
		{Caller: "zz", Scheduled: 0, Outcome: OK},              // unknown caller
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

func TestChecks(t *testing.T) {
	tests := []struct {
		c    Check
		pass bool
	}{
		{Between("b", "", 2, 1, 2, ""), true},
		{Between("b", "", 2.01, 1, 2, ""), false},
		{AtMost("m", "", 3, 2, ""), false},
		{AtLeast("l", "", 3, 2, ""), true},
		{Equal("e", "", 40, 40, ""), true},
		{Bool("t", "", true, false, "yes", "no"), false},
	}
	for i, tc := range tests {
		if tc.c.Pass != tc.pass {
			t.Errorf("case %d (%+v): pass=%v", i, tc.c, tc.c.Pass)
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
