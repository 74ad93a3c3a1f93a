package eurekaarticle

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/caller"
	"sdchaos/eureka"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// modelRun is what every Eureka run stores in its history's Data: the
// clock between the recorder's real offsets (ops, events) and model time,
// and the model length of the timeline.
type modelRun struct {
	Clock    rig.ModelClock `json:"clock"`
	Duration time.Duration  `json:"duration_ns"`
}

// newModelRun returns the model run of rec on r's scale.
func newModelRun(r *rig.Eureka, rec *history.Recorder, d time.Duration) modelRun {
	return modelRun{Clock: rig.NewModelClock(r.Scale, rec), Duration: d}
}

// eventAt returns the model time of the first event of kind in phase.
func (m modelRun) eventAt(h *history.History, kind history.EventKind, phase history.Phase) (history.Event, time.Duration, bool) {
	e, ok := h.Events.First(kind, phase)
	if !ok {
		return e, 0, false
	}
	return e, m.Clock.OfReal(e.At), true
}

// tasksIn counts a caller's tasks scheduled in [from, to) of model time,
// the failed ones, and those that needed more than one try.
func (m modelRun) tasksIn(ops []history.Op, name string, from, to time.Duration) (n, fail, retried int) {
	for _, op := range history.Filter(ops, name) {
		at := m.Clock.OfReal(op.Scheduled)
		if at < from || at >= to {
			continue
		}
		n++
		if op.Outcome != history.OK {
			fail++
		}
		if op.Count > 1 {
			retried++
		}
	}
	return n, fail, retried
}

// okPerWindow counts a caller's successful and failed tasks per model
// window of the given length, over n windows.
func (m modelRun) okPerWindow(ops []history.Op, name string, window time.Duration, n int) (ok, fail []int) {
	ok, fail = make([]int, n), make([]int, n)
	for _, op := range history.Filter(ops, name) {
		w := int(m.Clock.OfReal(op.Scheduled) / window)
		if w < 0 || w >= n {
			continue
		}
		if op.Outcome == history.OK {
			ok[w]++
		} else {
			fail[w]++
		}
	}
	return ok, fail
}

// finish stores data in the history of rec, whose timeline lasted real.
func finish(rec *history.Recorder, real time.Duration, data any) (*history.History, error) {
	h := rec.History()
	h.Timeline = real
	if err := h.SetData(data); err != nil {
		return nil, err
	}
	return &h, nil
}

// runTimeline runs traffic (possibly none) for the model duration while the
// timeline fires; with no traffic, a last probe step keeps the timeline
// running until the end, so the servers are read after the whole span.
func runTimeline(ctx context.Context, rec *history.Recorder, m modelRun, ts []caller.Traffic, tl fault.Timeline) error {
	real := m.Clock.Real(m.Duration)
	if len(ts) == 0 {
		tl = append(tl, fault.Step{At: real, Probe: endOfRun()})
	}
	return rig.RunTraffic(ctx, rec, ts, tl, real)
}

// endOfRun is the probe step that marks the end of the observation.
func endOfRun() fault.ProbeFunc {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "end of the observation"},
		Func: func(context.Context, *history.Recorder) error { return nil }}
}

// histories reads the servers' histories with times relative to the
// recorder's zero (a killed server is skipped).
func histories(m modelRun, servers []*eureka.ServerProc) (map[string]eureka.History, error) {
	hs, err := rig.Histories(servers)
	if err != nil {
		return nil, err
	}
	m.Clock.RelHistories(hs)
	return hs, nil
}

// serverNames maps each server's name to its URL.
func serverNames(servers []*eureka.ServerProc) map[string]string {
	out := map[string]string{}
	for _, s := range servers {
		out[s.Name] = s.URL
	}
	return out
}

// hostOf strips the scheme of a server URL.
func hostOf(url string) string { return strings.TrimPrefix(url, "http://") }

// pctStr formats a share as a percentage ("—" for NaN).
func pctStr(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.2f %%", 100*v)
}

// secStr formats seconds with one decimal ("—" for NaN).
func secStr(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.1f s", v)
}

// msStr formats milliseconds ("—" for NaN).
func msStr(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.0f ms", v)
}

// fmtNum formats a number with at most 2 decimals ("—" for NaN).
func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return report.Num(math.Round(v*100) / 100)
}

// share returns a/b, NaN when b is 0.
func share(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// onOff names a switch.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
