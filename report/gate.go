package report

import (
	"fmt"
	"sdchaos/history"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Gate is one precondition of a run that can judge: the world was as the
// plan assumed (ready before the first fault, every fault took effect, the
// callers kept their schedule). A run with a failed gate is invalid —
// never a pass or a fail — and is retried within a budget.
type Gate struct {
	Name     string `json:"name"`
	OK       bool   `json:"ok"`
	Measured string `json:"measured"`
	Limit    string `json:"limit"`
}

// The limits of the generic gates.
const (
	// LateSend is how late a send may start after its scheduled time
	// before it counts as late.
	LateSend = 100 * time.Millisecond
	// LateShare is the largest share of late sends a valid run may have.
	LateShare = 0.01
	// MaxBadLines is how many malformed lines a user's client may print
	// (or 1 % of its lines, when more) before its run is invalid.
	MaxBadLines = 10
)

// Gates returns the generic gates of a history: every fault took effect;
// the rig was ready before the first fault (when the plan checked); the
// traffic kept its schedule (when there is traffic).
func Gates(h *history.History) []Gate {
	gs := []Gate{faultsGate(h.Events)}
	if g, ok := readyGate(h); ok {
		gs = append(gs, g)
	}
	if g, ok := scheduleGate(h.Ops); ok {
		gs = append(gs, g)
	}
	if op, ok := history.FindOp(h.Ops, history.ClientOp); ok {
		gs = append(gs, clientGates(op)...)
	}
	var wakes []history.Op
	for _, op := range h.Ops {
		if op.Caller == history.WakeOp || strings.HasPrefix(op.Caller, history.WakeOp+"/") {
			wakes = append(wakes, op)
		}
	}
	sort.Slice(wakes, func(i, j int) bool { return wakes[i].Caller < wakes[j].Caller }) // the harness's first, then by server
	for _, op := range wakes {
		gs = append(gs, wakeGate(op))
	}
	return gs
}

// wakeGate judges a wake probe of a scaled-time run (the harness's, or a
// server process's: history.WakeOp + "/" + its name): its bands allow each
// wake-up they wait on to come up to op.Value late (×the time scale in
// model time), so a run in which a process's timers woke later than that
// judged nothing.
func wakeGate(op history.Op) Gate {
	_, err := time.ParseDuration(op.Value)
	who := "the harness's"
	if name, ok := strings.CutPrefix(op.Caller, history.WakeOp+"/"); ok {
		who = "server " + name + "'s"
	}
	g := Gate{Name: who + " timers woke on time (the bands' allowance for a late wake-up)", OK: err == nil && op.Count == 0,
		Measured: fmt.Sprintf("%d of %d wake-ups over %s late, worst %s", op.Count, op.Seq, op.Value, (op.Start - op.Scheduled).Round(time.Millisecond)),
		Limit:    "none over " + op.Value}
	if err != nil {
		g.Measured = fmt.Sprintf("the probe's allowance %q: %v", op.Value, err)
	}
	return g
}

// clientGates judge a user's client: it printed calls, few malformed
// lines, and ran until the end of the run.
func clientGates(op history.Op) []Gate {
	lines, _ := strconv.Atoi(op.Value)
	limit := max(MaxBadLines, lines/100)
	return []Gate{
		{Name: "the client printed its calls", OK: lines > op.Count, Measured: fmt.Sprintf("%d lines", lines), Limit: "at least one call"},
		{Name: "the client's lines parse", OK: op.Count <= limit, Measured: fmt.Sprintf("%d malformed of %d", op.Count, lines),
			Limit: fmt.Sprintf("≤ %d (%d, or 1 %% of the lines)", limit, MaxBadLines)},
		{Name: "the client ran until the end", OK: op.Outcome == history.OK, Measured: orText(op.Err, "yes"), Limit: "no early exit"},
	}
}

func orText(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func faultsGate(evs history.Events) Gate {
	g := Gate{Name: "every fault took effect", OK: true, Measured: fmt.Sprintf("%d events", len(evs)), Limit: "no fault failed"}
	var failed []string
	for _, e := range evs {
		if e.Err != "" {
			failed = append(failed, fmt.Sprintf("%s (%s): %s", e.Label, e.Phase, e.Err))
		}
	}
	if len(failed) > 0 {
		g.OK, g.Measured = false, strings.Join(failed, "; ")
	}
	return g
}

// readyGate judges the plan's ready probe: the registry answered before
// the first fault and listed every instance (Value holds how many were
// expected).
func readyGate(h *history.History) (Gate, bool) {
	op, ok := history.FindOp(h.Ops, history.ReadyOp)
	if !ok {
		return Gate{}, false
	}
	g := Gate{Name: "registry healthy, every instance registered before the first fault", OK: op.Outcome == history.OK,
		Measured: fmt.Sprintf("%d listed", op.Count), Limit: op.Value + " listed"}
	if op.Outcome != history.OK {
		g.Measured = "not ready: " + ShortErr(op.Err)
	} else if op.Value != fmt.Sprint(op.Count) {
		g.OK = false
	}
	if first, ok := firstFault(h.Events); ok && op.End > first {
		g.OK, g.Measured = false, g.Measured+fmt.Sprintf(", checked at %s, after the first fault at %s", op.End, first)
	}
	return g, true
}

func firstFault(evs history.Events) (time.Duration, bool) {
	for _, e := range evs {
		if e.Phase == history.Inject {
			return e.At, true
		}
	}
	return 0, false
}

// scheduleGate judges the sends of the open-loop traffic (paced ops): at
// most LateShare of them may start more than LateSend after their
// scheduled time.
func scheduleGate(ops []history.Op) (Gate, bool) {
	var late []time.Duration
	n := 0
	for _, op := range ops {
		if !op.Paced {
			continue
		}
		n++
		if d := op.Start - op.Scheduled; d > LateSend {
			late = append(late, d)
		}
	}
	if n == 0 {
		return Gate{}, false
	}
	share := float64(len(late)) / float64(n)
	g := Gate{Name: "the callers kept their schedule (the harness was not starved)", OK: share <= LateShare,
		Measured: fmt.Sprintf("%d of %d sends over %s late (%.2f %%)", len(late), n, LateSend, 100*share),
		Limit:    fmt.Sprintf("≤ %.0f %% over %s late", 100*LateShare, LateSend)}
	if len(late) > 0 {
		sort.Slice(late, func(i, j int) bool { return late[i] > late[j] })
		g.Measured += fmt.Sprintf(", worst %s", late[0].Round(time.Millisecond))
	}
	return g, true
}

// GatesOK reports whether every gate held.
func GatesOK(gs []Gate) bool {
	for _, g := range gs {
		if !g.OK {
			return false
		}
	}
	return true
}
