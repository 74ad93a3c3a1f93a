package report

import (
	"bytes"
	"encoding/json"
	"math"
	"sdchaos/history"
	"strings"
	"testing"
	"time"
)

func sampleResult() *Result {
	r := NewResult("demo")
	r.Title = "a demo"
	r.Seed = 7
	r.Params["rate"] = "40"
	ops := []history.Op{
		{Caller: "keep", Scheduled: 100 * time.Millisecond, Outcome: history.OK},
		{Caller: "keep", Scheduled: 1100 * time.Millisecond, Outcome: history.Fail},
		{Caller: "clear", Scheduled: 1200 * time.Millisecond, Outcome: history.Unknown},
	}
	r.Series = PerSecond(ops, []string{"keep", "clear"}, 2)
	r.AddTable(SecondsTable("per second", []Row{{"keep", "(a) keep"}, {"clear", "(b) clear"}}, r.Series,
		history.Events{{At: 1500 * time.Millisecond, Kind: history.KillMembers, Phase: history.Inject, Label: "kill all"}}))
	r.Metrics["x"] = 1.5
	r.Metrics["nan"] = math.NaN()
	r.AddCheck(Band("x in band", 1, 2, " s").Says(SaysValue("2.5 s", 2.5)).Because("a cause").Judge(1.5))
	r.Conclude("fine")
	r.Finish()
	return r
}

func TestRenderFormats(t *testing.T) {
	r := sampleResult()
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Render(&b, r, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := b.String()
		for _, want := range []string{"demo"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", f, want, out)
			}
		}
		if f == "table" || f == "markdown" {
			for _, want := range []string{"s1*", "1/0", "0/1", "REPRODUCED, ARTICLE DIFFERS", "* s1: kill all", "DIFFERS [1]", "[1] x in band: a cause"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s output lacks %q:\n%s", f, want, out)
				}
			}
		}
	}
	if err := Render(&bytes.Buffer{}, r, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestJSONContract(t *testing.T) {
	var b bytes.Buffer
	if err := RenderJSON(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "seed", "params", "tables", "series", "metrics", "checks", "reproduced", "verdict", "marks"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if m["metrics"].(map[string]any)["nan"] != nil {
		t.Error("NaN metric not encoded as null")
	}
	check := m["checks"].([]any)[0].(map[string]any)
	want := map[string]any{"measured": 1.5, "band_lo": 1.0, "band_hi": 2.0, "unit": "s", "verdict": "differs", "article_lo": 2.5}
	for k, v := range want {
		if check[k] != v {
			t.Errorf("check JSON %s = %v, want %v", k, check[k], v)
		}
	}
	if m["verdict"] != "differs" || m["reproduced"] != true {
		t.Errorf("run verdict %v reproduced %v", m["verdict"], m["reproduced"])
	}
	series := m["series"].(map[string]any)["clear"].(map[string]any)
	if got := series["fail"].([]any)[1].(float64); got != 1 {
		t.Errorf("clear fail[1] = %v, want 1 (unknown folds into fail)", got)
	}
}
