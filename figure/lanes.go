package figure

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"sdchaos/history"
	"sdchaos/report"
)

// Lane is one row of an operations chart: every op of one caller (a
// probe, a member's puts), drawn as a bar from its start to its end.
type Lane struct {
	Name string
	Ops  []history.Op
}

// OutcomeColor is the colour of an op's bar: ok green, failed vermilion,
// unknown (timed out, may have happened) grey.
func OutcomeColor(o history.Outcome) color.Color {
	switch o {
	case history.OK:
		return OK
	case history.Fail:
		return Fail
	}
	return Grey
}

// LanesOf returns one lane per caller of ops whose name starts with one of
// prefixes, in the order of prefixes and then of the callers' names; a
// caller named in rename is shown under its new name.
func LanesOf(ops []history.Op, prefixes []string, rename map[string]string) []Lane {
	byCaller := map[string][]history.Op{}
	for _, op := range ops {
		byCaller[op.Caller] = append(byCaller[op.Caller], op)
	}
	var lanes []Lane
	for _, pre := range prefixes {
		for _, c := range report.SortedKeys(byCaller) {
			if !strings.HasPrefix(c, pre) {
				continue
			}
			name := c
			if r, ok := rename[c]; ok {
				name = r
			}
			lanes = append(lanes, Lane{Name: name, Ops: byCaller[c]})
			delete(byCaller, c)
		}
	}
	return lanes
}

// Lanes returns a panel with one row per lane, top to bottom, each op a
// bar coloured by its outcome (at least 0.05 s wide, so an instant op
// shows), over the fault windows and marks; x is seconds of the run.
func Lanes(title string, lanes []Lane, ws []Window, ms []Mark) (*plot.Plot, error) {
	p := NewPanel(title, "time since the run started (s)", "")
	AddWindows(p, ws, ms)
	n := len(lanes)
	legend := map[history.Outcome]plot.Thumbnailer{}
	for i, l := range lanes {
		y := float64(n - 1 - i)
		for _, op := range l.Ops {
			from, to := op.Start.Seconds(), op.End.Seconds()
			if to < from+0.05 {
				to = from + 0.05
			}
			bar, err := plotter.NewLine(plotter.XYs{{X: from, Y: y}, {X: to, Y: y}})
			if err != nil {
				return nil, fmt.Errorf("%s: lane %q: %w", title, l.Name, err)
			}
			bar.LineStyle = lineStyle(OutcomeColor(op.Outcome), 7)
			p.Add(bar)
			legend[op.Outcome] = bar
		}
	}
	for _, o := range []history.Outcome{history.OK, history.Fail, history.Unknown} {
		if th, ok := legend[o]; ok {
			p.Legend.Add(outcomeWord(o), th)
		}
	}
	ticks := make([]plot.Tick, n)
	for i, l := range lanes {
		ticks[i] = plot.Tick{Value: float64(n - 1 - i), Label: l.Name}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	return p, nil
}

// outcomeWord is an outcome's legend entry.
func outcomeWord(o history.Outcome) string {
	switch o {
	case history.OK:
		return "ok"
	case history.Fail:
		return "failed"
	}
	return "unknown (timed out)"
}

// LanesHeight is the height of a figure with one Lanes panel of n lanes.
func LanesHeight(n int) vg.Length { return vg.Inch * (1.6 + 0.22*vg.Length(n)) }
