package report

import (
	"math"
	"strings"
	"testing"
)

// failover is the eureka-failover check for the scheduler fetching every
// 30 s: the band allows any switch within one fetch interval plus 1 s, the
// article saw 15–30 s.
func failover() Expect {
	return Band("switch after the kill (fetch 30s)", 0, 31, " s").Says(SaysRange("switches in about 15–30 s", 15, 30)).
		Within(1, "one fetch attempt's retry (1 s)").
		Spread("the switch lands anywhere within one fetch interval; the article's figure is one of the outcomes the rule allows")
}

func TestCheckVerdicts(t *testing.T) {
	tests := []struct {
		name  string
		c     Check
		want  Verdict
		cause string // a part of the cause a differs must give
	}{
		{"in band, no figure", Band("b", 1, 2, "").Judge(2), Reproduced, ""},
		{"outside above", Band("b", 1, 2, "").Judge(2.01), Outside, ""},
		{"NaN is outside", Band("b", 1, 2, "").Judge(math.NaN()), Outside, ""},
		{"at most", AtMost("m", 2, "").Judge(3), Outside, ""},
		{"at least", AtLeast("l", 2, "").Judge(3), Reproduced, ""},
		{"exactly", Exactly("e", 40, "").Judge(40), Reproduced, ""},
		{"yes/no outside", No("t", "yes", "no").JudgeBool(true), Outside, ""},
		{"yes/no agrees", Yes("t", "yes", "no").Says(SaysYes("yes")).JudgeBool(true), Reproduced, ""},
		{"yes/no article says no", Yes("t", "yes", "no").Says(SaysNo("no")).Because("rule r").JudgeBool(true), Differs, "rule r"},
		{"figure in band, ours agrees", Band("b", 0, 2, " s").Says(SaysValue("1 s", 1)).Within(0.5, "r").Judge(1.5), Reproduced, ""},
		{"figure in band, ours off it", Band("b", 0, 2, " s").Says(SaysValue("1 s", 1)).Within(0.1, "r").Judge(1.5), Differs, "allow both"},
		{"no tolerance stated is exact", Band("b", 0, 2, " s").Says(SaysValue("1 s", 1)).Judge(1.001), Differs, exactBasis},
		{"relative tolerance", Band("b", 0, 200, "").Says(SaysValue("100", 100)).WithinShare(0.1, "r").Judge(109), Reproduced, ""},
		{"relative tolerance exceeded", Band("b", 0, 200, "").Says(SaysValue("100", 100)).WithinShare(0.1, "r").Judge(111), Differs, "110"},
		{"figure outside band", Band("b", 0.45, 1.6, " s").Says(SaysValue("< 1 s", 0.025)).Within(0.025, "r").Because("x").Judge(1.4), Differs, "x"},
		{"figure outside band, no cause", Band("b", 0, 1, " s").Says(SaysValue("5 s", 5)).Judge(0.5), Differs, "no cause given"},
		{"figure outside band, ours agrees", Band("b", 0, 1, " s").Says(SaysValue("1.1 s", 1.1)).Within(0.2, "r").Because("x").Judge(0.95), Reproduced, ""},
		{"range partly outside", Band("b", 0, 16, " s").Says(SaysRange("15–30 s", 15, 30)).Because("x").Judge(3), Differs, "x"},
		{"differs needs in band", Band("b", 0, 16, " s").Says(SaysValue("30 s", 30)).Because("x").Judge(17), Outside, ""},
		{"fetch 30 s switch at 9.6 s", failover().Judge(9.6), Differs, "one of the outcomes the rule allows"},
		{"fetch 30 s switch at 20 s", failover().Judge(20), Reproduced, ""},
		{"fetch 30 s switch at 14.5 s", failover().Judge(14.5), Reproduced, ""},
		{"fetch 30 s switch at 13.9 s", failover().Judge(13.9), Differs, "14–31 s"},
		{"invalid", Band("b", 0, 1, "").Invalid("no tasks"), Invalid, "no tasks"},
	}
	for _, tc := range tests {
		if tc.c.Verdict != tc.want {
			t.Errorf("%s: verdict %s, want %s (cause %q)", tc.name, tc.c.Verdict, tc.want, tc.c.Cause)
		}
		if tc.c.Pass != (tc.want == Reproduced || tc.want == Differs) {
			t.Errorf("%s: pass %v with verdict %s", tc.name, tc.c.Pass, tc.c.Verdict)
		}
		if !strings.Contains(tc.c.Cause, tc.cause) || (tc.cause == "" && tc.c.Cause != "") {
			t.Errorf("%s: cause %q, want one with %q", tc.name, tc.c.Cause, tc.cause)
		}
	}
}

func TestAgreementInterval(t *testing.T) {
	tests := []struct {
		name   string
		e      Expect
		lo, hi float64
		basis  string
		has    bool
	}{
		{"no figure", Band("b", 0, 1, "").Says(Says("words")), 0, 0, "", false},
		{"absolute", Band("b", 0, 40, " s").Says(SaysRange("15–30 s", 15, 30)).Within(1, "one tick"), 14, 31, "one tick", true},
		{"share of the larger end", Band("b", 0, 40, "").Says(SaysRange("", 10, 20)).WithinShare(0.1, "10 %"), 8, 22, "10 %", true},
		{"factor", Band("b", 0, 400, "").Says(SaysValue("", 50)).WithinFactor(2, "2×"), 25, 100, "2×", true},
		{"exact by default", Band("b", 0, 40, "").Says(SaysValue("", 3)), 3, 3, exactBasis, true},
		{"yes/no is exact", Yes("b", "y", "n").Says(SaysYes("")).Within(5, "ignored"), 1, 1, yesNoBasis, true},
	}
	for _, tc := range tests {
		lo, hi, basis, ok := tc.e.agreement()
		if ok != tc.has || (ok && (lo != tc.lo || hi != tc.hi || basis != tc.basis)) {
			t.Errorf("%s: agreement %v–%v %q %v, want %v–%v %q %v", tc.name, lo, hi, basis, ok, tc.lo, tc.hi, tc.basis, tc.has)
		}
	}
}

// either is a yes/no check whose rules allow both answers.
func either() Expect {
	e := Yes("either", "yes", "no")
	e.Lo, e.Hi = 0, 1
	return e
}

// overRuns aggregates one check measured at xs over len(xs) runs.
func overRuns(e Expect, xs ...float64) Check {
	var runs []*Result
	for _, x := range xs {
		r := NewResult("s")
		r.AddCheck(e.Judge(x))
		runs = append(runs, r)
	}
	return aggregateCheck(runs[0].Checks[0], runs)
}

func TestVerdictsOverRunsJudgeTheMedian(t *testing.T) {
	tests := []struct {
		name  string
		c     Check
		want  Verdict
		cause string
	}{
		{"median agrees, first run did not", overRuns(failover(), 9.6, 20, 21, 22, 19, 25, 18), Reproduced, ""},
		{"median off the figure", overRuns(failover(), 20, 9.6, 9.7, 9.6, 9.7, 9.6, 9.6), Differs, "one of the outcomes"},
		{"interval over the band's edge", overRuns(failover(), 30, 30.5, 31, 32, 33, 31.5, 30.8), Inconclusive, "overlaps"},
		{"all outside", overRuns(failover(), 40, 41, 42, 43, 44, 45, 46), Outside, ""},
		{"yes/no, article agrees", overRuns(Yes("y", "yes", "no").Says(SaysYes("yes")), 1, 1, 1, 1, 1, 1), Reproduced, ""},
		{"yes/no, article says no", overRuns(Yes("y", "yes", "no").Says(SaysNo("no")).Because("rule"), 1, 1, 1, 1, 1, 1), Differs, "rule"},
		{"either answer allowed, most runs the article's", overRuns(either().Says(SaysYes("yes")).Spread("a race"), 1, 1, 1, 1, 0, 1), Reproduced, ""},
		{"either answer allowed, most runs not", overRuns(either().Says(SaysYes("yes")).Spread("a race"), 0, 0, 1, 0, 0, 1), Differs, "a race"},
	}
	for _, tc := range tests {
		if tc.c.Verdict != tc.want || !strings.Contains(tc.c.Cause, tc.cause) || (tc.cause == "" && tc.c.Cause != "") {
			t.Errorf("%s: %s (cause %q), want %s with %q", tc.name, tc.c.Verdict, tc.c.Cause, tc.want, tc.cause)
		}
	}
}
