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

func TestHeaderNamesTheServer(t *testing.T) {
	tests := []struct {
		meta *history.Meta
		want string
	}{
		{nil, "demo — a demo"},
		{&history.Meta{}, "demo — a demo"}, // a result stored before the server was recorded
		{&history.Meta{World: history.World{Server: "etcd v3.7.2 (go.etcd.io/etcd/server/v3, 3 members started by the harness)"}},
			"demo — a demo — on etcd v3.7.2 (go.etcd.io/etcd/server/v3, 3 members started by the harness)"},
	}
	for _, tc := range tests {
		r := sampleResult()
		r.Meta = tc.meta
		if got := Header(r); got != tc.want {
			t.Errorf("Header = %q, want %q", got, tc.want)
		}
		for _, f := range []string{"table", "markdown"} {
			var b bytes.Buffer
			if err := Render(&b, r, f); err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(b.String(), "\n")
			if !strings.Contains(first, tc.want) {
				t.Errorf("%s: first line %q does not hold %q", f, first, tc.want)
			}
		}
	}
}

func TestJSONMetaNamesTheWorldAndOldResultsLoad(t *testing.T) {
	r := sampleResult()
	r.Meta = &history.Meta{SchemaVersion: history.SchemaVersion, Etcd: "v3.7.2", World: history.World{Server: "Nacos server 3.1.0-bugfix",
		Components: []history.Component{{Name: "nacos-client", Role: history.RoleClient, Coordinates: "com.alibaba.nacos:nacos-client", Version: "3.1.1"}},
		Settings:   []history.Setting{{Of: "Nacos server nacos", Name: "nacos.standalone", Value: "true"}},
		Constants:  []history.Constant{{Name: "BatchSize", Value: "250", Where: "PeerEurekaNode.BATCH_SIZE"}}}}
	var b bytes.Buffer
	if err := RenderJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	meta := m["meta"].(map[string]any)
	for _, k := range []string{"schema_version", "etcd", "server", "components", "settings", "constants"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("meta JSON lacks %q", k)
		}
	}
	comp := meta["components"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "role", "coordinates", "version", "used_by", "source"} {
		if _, ok := comp[k]; !ok {
			t.Errorf("component JSON lacks %q", k)
		}
	}
	var back Result
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Meta.Server != r.Meta.Server || len(back.Meta.Components) != 1 {
		t.Errorf("the result does not read back: %v, %+v", err, back.Meta)
	}
	old := `{"scenario":"demo","meta":{"schema_version":3,"harness":"x","go":"go1.26","etcd":"v3.7.2","os":"linux","arch":"amd64","cpus":2}}`
	var stored Result
	if err := json.Unmarshal([]byte(old), &stored); err != nil || stored.Meta.Etcd != "v3.7.2" || stored.Meta.Server != "" {
		t.Errorf("a result stored before the world was recorded: %v, %+v", err, stored.Meta)
	}
}
