package eurekaarticle

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// modelRun is what every Eureka run stores in its history's Data: the
// clock between the recorder's real offsets (ops, events) and model time,
// and the model length of the timeline.
type modelRun struct {
	Clock    eureka.ModelClock `json:"clock"`
	Duration time.Duration     `json:"duration_ns"`
}

// newModelRun returns the model run of w lasting d (model time).
func newModelRun(w *eureka.EurekaWorld, d time.Duration) modelRun {
	return modelRun{Clock: w.Clock, Duration: d}
}

// plan returns the Eureka plan of these parameters over the run's
// duration: its clusters, schedulers, timeline and data.
func (p eurekaParams) plan(env *scenarios.Env, clusters []eureka.ClusterSpec,
	schedulers func(context.Context, *eureka.EurekaWorld) ([]eureka.EurekaScheduler, error),
	timeline func(*eureka.EurekaWorld) (fault.Timeline, error), collect func(*eureka.EurekaWorld) (any, error)) eureka.EurekaPlan {
	return eureka.EurekaPlan{Backend: p.backend(), Factor: p.Scale, Duration: env.Duration, Clusters: clusters,
		Schedulers: schedulers, Timeline: timeline, Collect: collect}
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

// tasksWithoutInstance counts a scheduler's tasks sent while the last
// registry its client stored held no instance: surely (lo: empty from
// edge before the send to edge after it), and possibly (hi: empty at
// either end, a fetch that emptied or refilled it being that close).
func (m modelRun) tasksWithoutInstance(ops []history.Op, name string, fetches []eurekamodel.FetchEvent, edge time.Duration) (lo, hi int) {
	emptyAt := func(t time.Duration) bool {
		empty := false
		for _, f := range fetches {
			if f.OK && f.At <= t {
				empty = len(f.IDs) == 0
			}
		}
		return empty
	}
	for _, op := range history.Filter(ops, name) {
		at := m.Clock.OfReal(op.Start)
		before, after := emptyAt(at-edge), emptyAt(at+edge)
		if before && after {
			lo++
		}
		if before || after {
			hi++
		}
	}
	return lo, hi
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

// serverNames maps each server's name to its URL.
func serverNames(servers []eureka.EurekaServer) map[string]string {
	out := map[string]string{}
	for _, s := range servers {
		out[s.Name()] = s.URL()
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
