package figure

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"

	"sdchaos/history"
	"sdchaos/report"
)

// events is a synthetic fault timeline: a kill healed at 6 s, a crash
// never healed, and a caller restart (a one-off).
var events = history.Events{
	{At: 2 * time.Second, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n1"}, Label: "SIGKILL etcd n1"},
	{At: 3 * time.Second, Kind: history.CrashInstance, Phase: history.Inject, Targets: []string{"i2"}, Label: "crash instance i2"},
	{At: 4 * time.Second, Kind: history.CallerStart, Phase: history.Once, Targets: []string{"snap"}, Label: "caller snap starts"},
	{At: 6 * time.Second, Kind: history.KillMembers, Phase: history.Heal, Targets: []string{"n1"}, Label: "healed: SIGKILL etcd n1"},
}

func TestWindowsPairInjectWithHeal(t *testing.T) {
	ws, ms := Windows(events, 10, Seconds)
	want := []Window{
		{From: 2, To: 6, Kind: history.KillMembers, Label: "SIGKILL etcd n1"},
		{From: 3, To: 10, Kind: history.CrashInstance, Label: "crash instance i2", Open: true},
	}
	if fmt.Sprint(ws) != fmt.Sprint(want) {
		t.Errorf("windows = %v, want %v", ws, want)
	}
	if len(ms) != 1 || ms[0].At != 4 || ms[0].Label != "caller snap starts" {
		t.Errorf("marks = %v, want one at 4 s", ms)
	}
	// A heal of other targets does not end the window.
	other := history.Events{events[0], {At: 5 * time.Second, Kind: history.KillMembers, Phase: history.Heal, Targets: []string{"n2"}}}
	if ws, _ := Windows(other, 9, Seconds); len(ws) != 1 || !ws[0].Open || ws[0].To != 9 {
		t.Errorf("a heal of n2 ended the kill of n1: %v", ws)
	}
}

// svgOf renders f and checks that the SVG is well-formed XML; it returns
// the SVG's text content and the document.
func svgOf(t *testing.T, f Plot) (texts []string, doc string) {
	t.Helper()
	b, err := SVG(f)
	if err != nil {
		t.Fatalf("SVG: %v", err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG of %s is not well-formed XML: %v", f.Name, err)
		}
		if cd, ok := tok.(xml.CharData); ok && strings.TrimSpace(string(cd)) != "" {
			texts = append(texts, strings.TrimSpace(string(cd)))
		}
	}
	p, err := PNG(f)
	if err != nil {
		t.Fatalf("PNG: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(p)); err != nil {
		t.Fatalf("the PNG of %s does not decode: %v", f.Name, err)
	}
	if dir := os.Getenv("FIGURE_OUT"); dir != "" { // look at them: FIGURE_OUT=/tmp/fig go test ./figure
		_ = os.WriteFile(filepath.Join(dir, f.Name+".png"), p, 0o644)
		_ = os.WriteFile(filepath.Join(dir, f.Name+".svg"), b, 0o644)
	}
	return texts, string(b)
}

// fillOf is the SVG style of a fill in colour c, as vgsvg writes it.
func fillOf(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, a := c.RGBA()
	k := 255 / float64(a)
	return fmt.Sprintf("fill:#%02X%02X%02X", int(float64(r)*k), int(float64(g)*k), int(float64(b)*k))
}

func TestEveryHelperRendersItsSeriesAndWindows(t *testing.T) {
	ws, ms := Windows(events, 10, Seconds)
	series := report.Series{OK: []int{40, 40, 40, 17, 0, 0, 0, 40, 40, 40}, Fail: []int{0, 0, 0, 23, 40, 40, 40, 0, 0, 0},
		Unknown: []int{0, 0, 0, 3, 0, 0, 0, 0, 0, 0}}
	cases := []struct {
		name  string
		build func() (Plot, error)
		texts []string // legend entries, titles, labels the SVG must hold
		fills int      // shaded windows (fills of the window colours) at least
	}{
		{"per-second", func() (Plot, error) {
			return PerSecond("per-second", []Caller{{Label: "keep", Series: series}, {Label: "clear", Series: series}}, ws, ms)
		}, []string{"keep", "clear", "ok", "failed", "of which timed out", "SIGKILL etcd n1", "crash instance i2", "caller snap starts",
			"calls per second"}, 4},
		{"time-series", func() (Plot, error) {
			p, err := TimeSeries("latency", "time (s)", "latency (ms)", ws, ms,
				Line{Name: "p50", X: []float64{0, 1, 2, math.NaN(), 4}, Y: []float64{1, 2, 3, 4, 5}},
				Line{Name: "p99", X: []float64{0, 1, 2, 3, 4}, Y: []float64{5, 6, 7, 8, 9}, Dashes: Dashed, Points: true})
			return One("time-series", p), err
		}, []string{"latency", "p50", "p99", "time (s)", "latency (ms)", "SIGKILL etcd n1"}, 2},
		{"log-log", func() (Plot, error) {
			p := NewPanel("cost", "instances N", "pass (ms)")
			LogX(p)
			LogY(p)
			xs, ys := []float64{1e4, 1e5, 1e6}, []float64{0.3, 2.9, 31}
			slope, icpt, _ := LogLogFit(xs, ys)
			err := AddPoints(p, Points{Name: "scan", X: xs, Y: ys}, Points{Name: "article", X: xs, Y: []float64{0.25, 0, 25}, Hollow: true})
			if err == nil {
				err = AddLines(p, PowerLine(fmt.Sprintf("fit, slope %.2f", slope), slope, icpt, 1e4, 1e6))
			}
			return One("log-log", p), err
		}, []string{"cost", "scan", "article", "fit, slope 1.01", "instances N"}, 0},
		{"distribution", func() (Plot, error) {
			p, err := Distribution("expiry", "seconds", "band of the rule", []Group{
				{Label: "lazy", Values: []float64{2, 2.01, 2.02}, BandLo: 2, BandHi: 2.03},
				{Label: "scan 1 s", Values: []float64{2.1, 2.5, 2.9}, BandLo: 2, BandHi: 3.03},
				{Label: "none", BandLo: math.NaN(), BandHi: math.NaN()},
			})
			return One("distribution", p), err
		}, []string{"expiry", "lazy", "scan 1 s", "none", "band of the rule"}, 0},
		{"bars", func() (Plot, error) {
			p, err := Bars("evictions", "false evictions", []string{"on", "off"},
				Bar{Name: "measured", Values: []float64{0, 12}},
				Bar{Name: "predicted", Values: []float64{0, 10}, Lo: []float64{0, 8}, Hi: []float64{0, 13}})
			return One("bars", p), err
		}, []string{"evictions", "measured", "predicted", "on", "off", "false evictions"}, 0},
		{"lanes", func() (Plot, error) {
			ops := []history.Op{
				{Caller: "survivor/put", Start: time.Second, End: 3 * time.Second, Outcome: history.Unknown},
				{Caller: "kv/n1/get", Start: 0, End: time.Millisecond, Outcome: history.OK},
				{Caller: "kv/n1/get", Start: 4 * time.Second, End: 5 * time.Second, Outcome: history.Fail},
				{Caller: "ignored", Start: 0, End: time.Second, Outcome: history.OK},
			}
			lanes := LanesOf(ops, func(op history.Op) (int, bool) {
				return map[string]int{"kv/n1/get": 1}[op.Caller], op.Caller != "ignored"
			})
			if len(lanes) != 2 || lanes[0].Name != "survivor/put" || lanes[1].Name != "kv/n1/get" || len(lanes[1].Ops) != 2 {
				return Plot{}, fmt.Errorf("lanes %+v: want survivor/put, then kv/n1/get with 2 ops", lanes)
			}
			p, err := Lanes("operations", lanes, ws, ms)
			return One("lanes", p), err
		}, []string{"operations", "survivor/put", "kv/n1/get", "ok", "failed", "unknown (timed out)", "SIGKILL etcd n1"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := c.build()
			if err != nil {
				t.Fatal(err)
			}
			texts, doc := svgOf(t, f)
			for _, want := range c.texts {
				if !contains(texts, want) {
					t.Errorf("the SVG has no text %q (texts: %q)", want, texts)
				}
			}
			fills := strings.Count(doc, fillOf(ShadeColor(0))) + strings.Count(doc, fillOf(ShadeColor(1)))
			if fills < c.fills {
				t.Errorf("the SVG has %d shaded windows, want at least %d", fills, c.fills)
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestLogLogFitFindsTheSlope(t *testing.T) {
	xs := []float64{10, 100, 1000, 0}
	ys := []float64{3, 30, 300, 5} // the zero x is left out
	slope, icpt, ok := LogLogFit(xs, ys)
	if !ok || math.Abs(slope-1) > 1e-9 || math.Abs(math.Exp(icpt)-0.3) > 1e-9 {
		t.Errorf("fit = %v, %v, %v; want slope 1, factor 0.3", slope, math.Exp(icpt), ok)
	}
	if _, _, ok := LogLogFit([]float64{1}, []float64{1}); ok {
		t.Error("one point gave a fit")
	}
}

func TestAnEmptyFigureIsAnError(t *testing.T) {
	if _, err := SVG(Plot{Name: "empty"}); err == nil {
		t.Error("a figure without panels rendered")
	}
	p := NewPanel("bad", "x", "y")
	LogY(p)
	_ = AddLines(p, Line{X: []float64{1, 2}, Y: []float64{-1, 1}})
	if _, err := SVG(One("bad", p)); err == nil {
		t.Error("a negative value on a log axis rendered without error")
	}
}

func TestLogTicksLabelShortRanges(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(3, 40) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, ","); got != "5,10,20" {
		t.Errorf("labels over 3–40 = %s, want 5,10,20", got)
	}
	var _ plot.Ticker = logTicks{}
}

// TestLogTicksLabelBothEnds: a long log axis labels a 2 or 5 tick in more
// than half a decade without a label at either end (expiry-scan-cost's
// heap at 0.02 ms under a lowest label of 0.1).
func TestLogTicksLabelBothEnds(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(0.014, 60) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, ","); got != "0.02,0.1,1,10,50" {
		t.Errorf("labels over 0.014–60 = %s, want 0.02,0.1,1,10,50", got)
	}
}

func TestTickLabels(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 25: "25", 2.5: "2.5", 1e6: "1,000,000", 12345: "12,345", 0.000125: "0.000125", -20000: "-20,000"} {
		if got := tickLabel(v); got != want {
			t.Errorf("tickLabel(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestTidyTicksLabelRoundValues(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{{0, 10, "0,2,4,6,8,10"}, {0, 42, "0,10,20,30,40"}, {-0.2, 3.2, "0,1,2,3"}, {2.03, 2.9, "2.2,2.4,2.6,2.8"}, {0, 1710, "0,500,1000,1500"}} {
		var labels []string
		for _, tk := range (tidyTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, ","); got != tc.want {
			t.Errorf("ticks over %g–%g: %s, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}
