package anyregistry

import (
	"fmt"
	"math"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// run is what the judge works from: the experiment, its world's rules,
// the history and its per-second series.
type run struct {
	x     experiment.Experiment
	reg   rig.Registry
	rules experiment.Rules
	h     *history.History
	res   *report.Result
	cov   coverage
}

// window is one fault step's span on the run's timeline: from its
// injection to its heal (the end of the run when never healed). A step
// whose fault heals in stages — a spread: the callers' links at the
// step's end, each instance's link at its own seeded delay after it — ends
// at its first heal: the registry is back then, and what follows is the
// instances' return.
type window struct {
	step     experiment.Step
	from, to time.Duration
	// until ends what follows the heal: the next fault step's injection,
	// else the end of the run (what comes after a heal is judged up to the
	// next fault, never across it).
	until   time.Duration
	healed  bool
	targets []string
	ok      bool
}

// judge turns a neutral experiment's history into the result: the
// per-second table, then per fault step the checks its world's rules call
// for, and a conclusion from the measured numbers.
func judge(reg rig.Registry, x experiment.Experiment, h *history.History) *report.Result {
	r := &run{x: x, reg: reg, rules: reg.Rules(x), h: h, res: report.NewResult(""),
		cov: coverage{judged: map[string][]span{}, recovery: map[string][]span{}}}
	r.res.Title = fmt.Sprintf("%s on %s", x.Name, reg.Describe())
	r.res.TimelineSeconds, r.res.Events = h.Timeline.Seconds(), h.Events
	secs := int(math.Ceil(h.Timeline.Seconds()))
	r.res.Series = report.PerSecond(h.Ops, callerNames(x), secs)
	r.res.AddTable(report.SecondsTable("Per-second ok/fail of each caller", rows(x), r.res.Series, h.Events))
	for _, name := range callerNames(x) {
		r.res.Metrics.AddSeriesMetrics(name, r.res.Series[name])
	}
	if len(x.Timeline) == 0 {
		r.res.AddCheck(report.Yes("the experiment has a timeline", "yes", "no").Invalid("no step"))
		return r.res
	}
	for i, s := range x.Timeline {
		r.judgeStep(i, s)
	}
	r.conclude()
	r.concludeCoverage()
	return r.res
}

// judgeStep adds the checks of one fault step.
func (r *run) judgeStep(i int, s experiment.Step) {
	if s.Probe != "" {
		return // judged with the fault it probes
	}
	w := r.windowOf(i, s)
	if !w.ok {
		r.res.AddCheck(report.Yes(fmt.Sprintf("step %d (%s) took effect", i+1, s.Fault), "yes", "no").
			Invalid("no injection of this step was recorded"))
		return
	}
	switch s.Fault {
	case experiment.Unreachable:
		r.unreachableChecks(w)
	case experiment.QuorumLoss, experiment.CutOffMember:
		r.memberChecks(w)
		r.memberCallerChecks(w)
	case experiment.MemberUnreachable:
		r.memberCallerChecks(w)
		r.memberListChecks(w)
	case experiment.CrashInstance:
		// judged within the window of the fault it falls in
	}
}

// windowOf finds step i's injection and heal among the events it made.
func (r *run) windowOf(i int, s experiment.Step) window {
	w := window{step: s, to: r.h.Timeline, until: r.h.Timeline}
	for _, e := range r.h.Events.OfOrigin(i + 1) {
		switch {
		case e.Phase == history.Inject && e.Err == "":
			w.from, w.targets, w.ok = e.At, e.Targets, true
		case e.Phase == history.Heal && (!w.healed || e.At < w.to):
			w.to, w.healed = e.At, true
		}
	}
	for j, next := range r.x.Timeline {
		if j <= i || next.Probe != "" || next.Fault == experiment.CrashInstance {
			continue
		}
		for _, e := range r.h.Events.OfOrigin(j + 1) {
			if e.Phase == history.Inject && e.At >= w.to && e.At < w.until {
				w.until = e.At
			}
		}
	}
	return w
}

// callerNames are the experiment's callers, in its order.
func callerNames(x experiment.Experiment) []string {
	out := make([]string, len(x.Callers))
	for i, c := range x.Callers {
		out[i] = c.Name
	}
	return out
}

// rows label each caller's row.
func rows(x experiment.Experiment) []report.Row {
	out := make([]report.Row, len(x.Callers))
	for i, c := range x.Callers {
		out[i] = report.Row{Key: c.Name, Label: label(c)}
	}
	return out
}

// label says what a caller is.
func label(c experiment.Caller) string {
	switch c.Kind {
	case experiment.PolicyCaller:
		l := fmt.Sprintf("%s: %s the list on a failed refresh", c.Name, c.Policy)
		if c.Eject > 0 {
			l += fmt.Sprintf(", eject %s after a failed call", c.Eject)
		}
		return l
	case experiment.RealClient:
		return c.Name + ": real client " + c.Client
	}
	return c.Name + ": your program"
}

// crashIn returns the time of an instance crash within w, if any.
func (r *run) crashIn(w window) (time.Duration, bool) {
	for i, s := range r.x.Timeline {
		if s.Fault != experiment.CrashInstance {
			continue
		}
		if cw := r.windowOf(i, s); cw.ok && cw.from >= w.from && cw.from < w.to {
			return cw.from, true
		}
	}
	return 0, false
}

// countOf returns the calls of name scheduled in [from, to) and how many failed.
func (r *run) countOf(name string, from, to time.Duration) (n, failed int) {
	return report.Count(r.h.Ops, name, from, to)
}

// splitAt counts name's calls scheduled in [from, to) on each side of an
// instant t: a call counts before t only if it ended before t, so a call
// in flight when an instance crashed counts with the crash.
func (r *run) splitAt(name string, from, t, to time.Duration) (before, beforeFail, after, afterFail int) {
	for _, op := range r.h.Ops {
		if op.Caller != name || op.Scheduled < from || op.Scheduled >= to {
			continue
		}
		failed := op.Outcome != history.OK
		if op.Scheduled < t && op.End < t {
			before, beforeFail = before+1, beforeFail+b2i(failed)
			continue
		}
		after, afterFail = after+1, afterFail+b2i(failed)
	}
	return before, beforeFail, after, afterFail
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SubjectRegistry is the subject of the checks about the registry itself
// (what it listed, how the instances came back), beside the callers'.
const SubjectRegistry = "registry"
