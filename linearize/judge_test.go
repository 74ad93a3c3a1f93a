package linearize

import (
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

func judged(t *testing.T, ops []history.Op, cutoff ...string) Judged {
	t.Helper()
	j, ok := JudgeOps(ops, cutoff, time.Second)
	if !ok {
		t.Fatal("no key-value ops found")
	}
	return j
}

func TestJudgedChecks(t *testing.T) {
	rule := "n3 cannot see a put made after the cut"
	tests := []struct {
		name  string
		check func(j Judged) report.Check
		ops   []history.Op
		want  report.Verdict
		text  string
	}{
		{"a: linearizable", func(j Judged) report.Check { return j.LinearizableCheck(report.Says("")) }, stale(), report.Reproduced, "yes (9 ops)"},
		{"a: stale linearizable read", func(j Judged) report.Check { return j.LinearizableCheck(report.Says("")) },
			during(put("n1", "b", "n1-4", 60, 64), get("n3", "b", "n2-1", 70, 75), final("a", "n3-2", 3000), final("b", "n1-4", 3000)), report.Outside, "no (10 ops): stale read"},
		{"a: nothing answered", func(j Judged) report.Check { return j.LinearizableCheck(report.Says("")) },
			[]history.Op{op("n1", Get, "a", "", 0, 2000, history.Unknown)}, report.Invalid, "—"},
		{"b: the cut-off member's stale read", func(j Judged) report.Check { return j.StaleCheck(rule, "", report.Says("")) }, stale(), report.Reproduced,
			"not linearizable (10 ops): stale read by n3 on b"},
		{"b: the cut-off member reads current data", func(j Judged) report.Check { return j.StaleCheck(rule, "", report.Says("")) },
			during(put("n1", "b", "n1-4", 60, 64), serGet("n3", "b", "n1-4", 70, 71), final("a", "n3-2", 3000), final("b", "n1-4", 3000)), report.Outside, "linearizable (10 ops)"},
		{"b: no read the rule applies to", func(j Judged) report.Check { return j.StaleCheck(rule, "no such read", report.Says("")) }, stale(), report.Invalid, "—"},
		{"c: nothing lost", func(j Judged) report.Check { return j.DurableCheck(report.Says("")) }, stale(), report.Reproduced, "0 of 4 (2 keys read after healing)"},
		{"c: a lost acknowledged put", func(j Judged) report.Check { return j.DurableCheck(report.Says("")) },
			during(put("n1", "b", "n1-4", 60, 64), final("a", "n3-2", 3000), final("b", "n2-1", 3000)), report.Outside, "1 of 4"},
		{"c: a key not read after healing", func(j Judged) report.Check { return j.DurableCheck(report.Says("")) }, during(final("a", "n3-2", 3000)), report.Invalid, "—"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.check(judged(t, tc.ops, "n3"))
			if c.Verdict != tc.want || !strings.HasPrefix(c.MeasuredText, tc.text) {
				t.Errorf("verdict %s, measured %q; want %s, %q…", c.Verdict, c.MeasuredText, tc.want, tc.text)
			}
		})
	}
}

func TestJudgedAddsTablesMetricsAndTheVisualisation(t *testing.T) {
	j := judged(t, stale(), "n3")
	res := report.NewResult("demo")
	j.AddTo(res, nil, j.LinearizableCheck(report.Says("")))
	if len(res.Tables) != 2 || res.Tables[1].Rows[2][1] != "the stale read" {
		t.Errorf("tables %+v: want the summary and the stale read's witness", res.Tables)
	}
	if len(res.Files["history.html"]) == 0 || len(res.Checks) != 1 {
		t.Errorf("files %v, %d checks", res.FileNames, len(res.Checks))
	}
	for name, want := range map[string]float64{"kv.lin.linearizable": 1, "kv.with_ser.linearizable": 0, "kv.put.ok": 4, "kv.put.unknown": 1,
		"kv.ser_get.ok": 2, "kv.lost_puts": 0, "kv.acked_puts": 4} {
		if got := res.Metrics[name]; got != want {
			t.Errorf("metric %s = %g, want %g", name, got, want)
		}
	}
	if c := strings.Join(res.Conclusion, " "); !strings.Contains(c, "stale read") {
		t.Errorf("conclusion %q does not name the stale read", c)
	}
	if _, ok := JudgeOps([]history.Op{{Caller: "keep"}}, nil, 0); ok {
		t.Error("a history without key-value ops was judged")
	}
}

func TestStaleForced(t *testing.T) {
	kvs := FromOps(stale())
	p, g, ok := StaleForced(kvs, []string{"n3"}, 55*ms, time.Second)
	if !ok || p.Value != "n1-4" || g.Member != "n3" {
		t.Errorf("StaleForced = %+v, %+v, %v; want n1's put of n1-4 and n3's get", p, g, ok)
	}
	if _, _, ok := StaleForced(kvs, []string{"n3"}, 65*ms, time.Second); ok {
		t.Error("a put before the cut forces nothing")
	}
	if _, _, ok := StaleForced(kvs, []string{"n1"}, 55*ms, time.Second); ok {
		t.Error("n1 is not cut off and read before the put")
	}
}
