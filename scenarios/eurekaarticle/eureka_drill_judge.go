//go:build sdchaos_unconverted

package scenarios

import (
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/report"
)

// independentSuccess is 1 − dead^(R+1): every try picks a dead worker with
// probability dead, independently.
func independentSuccess(dead float64, r int) float64 { return 1 - math.Pow(dead, float64(r+1)) }

// distinctSuccess is the exact success of R+1 distinct random picks among n
// workers of which k are dead: 1 − C(k, R+1)/C(n, R+1).
func distinctSuccess(n, k, r int) float64 {
	p := 1.0
	for i := 0; i <= r; i++ {
		p *= float64(k-i) / float64(n-i)
		if k-i <= 0 {
			return 1
		}
	}
	return 1 - p
}

// deadListedUntil is the earliest moment a scheduler's registry stopped
// listing every dead worker (the end of the run if it never did).
func deadListedUntil(run *drillRun) time.Duration {
	until := run.duration
	for _, evs := range run.fetches {
		for _, ev := range evs {
			if ev.At > run.faultAt && ev.OK && countListed(ev.IDs, run.dead) < len(run.dead) {
				until = min(until, ev.At)
				break
			}
		}
	}
	return until
}

func countListed(ids, want []string) int {
	set := map[string]bool{}
	for _, id := range ids {
		set[id] = true
	}
	n := 0
	for _, w := range want {
		if set[w] {
			n++
		}
	}
	return n
}

// judge turns a drill into the result (pure).
func (s *eurekaDrill) judge(run *drillRun) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds = run.duration.Seconds() / run.factor
	if !run.faultOK {
		res.AddCheck(report.Bool("faults injected", "yes", false, true, "yes", "no"))
		return res
	}
	until := deadListedUntil(run)
	d := float64(len(run.dead)) / float64(run.workers)
	t := report.Table{Title: fmt.Sprintf("Task success after the faults, %d of %d workers dead (model %.0f–%.0f s)", len(run.dead), run.workers, run.faultAt.Seconds(), until.Seconds()),
		Header: []string{"retries R", "tasks", "ok", "failed", "success", "theory 1 − dead^(R+1)", "exact, distinct picks", "article"}}
	for _, r := range s.Retries {
		name := retryName(r)
		n, fail := opsInWindow(run.ops, name, run.mc, run.faultAt, until)
		succ := math.NaN()
		if n > 0 {
			succ = float64(n-fail) / float64(n)
		}
		key := fmt.Sprint(r)
		res.Metrics["success@"+key], res.Metrics["theory@"+key] = succ, independentSuccess(d, r)
		exact := distinctSuccess(run.workers, len(run.dead), r)
		res.Metrics["exact@"+key], res.Metrics["tasks@"+key] = exact, float64(n)
		article := "—"
		if r == 3 {
			article = "≥ 99 %"
		}
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(n), fmt.Sprint(n - fail), fmt.Sprint(fail), pctStr(succ),
			pctStr(independentSuccess(d, r)), pctStr(exact), article})
		lo, hi := binomialBand(exact, n, 0.005)
		res.AddCheck(report.Between("success with R = "+key+" (exact theory ± 4σ)", article, succ, lo, hi, ""))
		if r == 3 {
			res.AddCheck(report.AtLeast("success with 3 retries", "≥ 99 %", succ, 0.99, ""))
		}
	}
	t.Notes = []string{fmt.Sprintf("tasks counted while every scheduler still listed all %d dead workers; %s", len(run.dead), wallNote(run.factor, run.duration))}
	res.AddTable(t)
	res.AddTable(s.windowTable(run))
	res.AddTable(s.serverTable(run))
	s.conclude(res, run, until)
	return res
}

func pctStr(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.2f %%", 100*v)
}

// opsInWindow counts a caller's tasks scheduled in [from, to) (model) and the failed ones.
func opsInWindow(ops []report.Op, caller string, mc modelClock, from, to time.Duration) (n, fail int) {
	for _, op := range report.Filter(ops, caller) {
		at := mc.ofReal(op.Scheduled)
		if at < from || at >= to {
			continue
		}
		n++
		if op.Outcome != report.OK {
			fail++
		}
	}
	return n, fail
}

const drillWindow = 30 * time.Second

func (s *eurekaDrill) windowTable(run *drillRun) report.Table {
	header := []string{"retries R", fmt.Sprintf("before (0–%.0f s)", run.faultAt.Seconds())}
	var edges []time.Duration
	for at := run.faultAt; at < run.duration; at += drillWindow {
		edges = append(edges, at)
		header = append(header, fmt.Sprintf("+%.0f–%.0f s", (at-run.faultAt).Seconds(), (min(at+drillWindow, run.duration)-run.faultAt).Seconds()))
	}
	t := report.Table{Title: "Success per 30 model seconds after the faults", Header: header}
	for _, r := range s.Retries {
		row := []string{retryName(r), windowCell(run, retryName(r), 0, run.faultAt)}
		for _, at := range edges {
			row = append(row, windowCell(run, retryName(r), at, min(at+drillWindow, run.duration)))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"cells: success % (failed/tasks)"}
	return t
}

func windowCell(run *drillRun, caller string, from, to time.Duration) string {
	n, fail := opsInWindow(run.ops, caller, run.mc, from, to)
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%d/%d)", pctStr(float64(n-fail)/float64(n)), fail, n)
}

func (s *eurekaDrill) serverTable(run *drillRun) report.Table {
	t := report.Table{Title: "Remaining servers at the end",
		Header: []string{"server", "registry size", "renewsLastMin / threshold", "eviction", "replication batches delivered / timed out"}}
	for _, name := range sortedKeys(run.servers) {
		st := run.servers[name]
		state := "runs"
		if !st.ExpirationEnabled {
			state = "refused (self-preservation)"
		}
		sent, timeouts := 0, 0
		for _, p := range st.Peers {
			sent += p.Batches
			timeouts += p.Timeouts
		}
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(st.Size), fmt.Sprintf("%d / %d", st.RenewsLastMin, st.Threshold), state,
			fmt.Sprintf("%d / %d", sent, timeouts)})
	}
	t.Notes = []string{fmt.Sprintf("%s was killed; the others had +%s on every request, against a %s peer timeout", run.killed, s.Latency, s.eu.PeerTimeout)}
	return t
}

func (s *eurekaDrill) conclude(res *report.Result, run *drillRun, until time.Duration) {
	m := res.Metrics
	for _, r := range s.Retries {
		k := fmt.Sprint(r)
		res.Conclude(fmt.Sprintf("With %d retries %s of the tasks succeeded (theory %s, exact for distinct picks %s).",
			r, pctStr(m["success@"+k]), pctStr(m["theory@"+k]), pctStr(m["exact@"+k])))
	}
	if until < run.duration {
		res.Conclude(fmt.Sprintf("A scheduler's registry dropped a dead worker %.0f s after the faults; later tasks were not counted.", (until - run.faultAt).Seconds()))
	} else {
		res.Conclude(fmt.Sprintf("The dead workers stayed in every scheduler's registry for the whole %.0f s after the faults, so failures did not stop by themselves: retries on other workers are what kept tasks succeeding.",
			(run.duration - run.faultAt).Seconds()))
	}
	if v, ok := m["success@3"]; ok && !math.IsNaN(v) {
		verdict := "reached"
		if v < 0.99 {
			verdict = "missed"
		}
		res.Conclude(fmt.Sprintf("The article's ≥ 99 %% with 3 retries was %s (%s).", verdict, pctStr(v)))
	}
	s.concludeServers(res, run)
}

func (s *eurekaDrill) concludeServers(res *report.Result, run *drillRun) {
	var refused, running []string
	timeouts := 0
	for _, name := range sortedKeys(run.servers) {
		st := run.servers[name]
		desc := fmt.Sprintf("%s %d/%d", name, st.RenewsLastMin, st.Threshold)
		if st.ExpirationEnabled {
			running = append(running, desc)
		} else {
			refused = append(refused, desc)
		}
		for _, p := range st.Peers {
			timeouts += p.Timeouts
		}
	}
	if len(refused) > 0 {
		res.Conclude(fmt.Sprintf("Self-preservation was engaged on %s (renewsLastMin/threshold): the renewals of the %d live workers fell to the threshold, so nothing is evicted.",
			strings.Join(refused, ", "), run.workers-len(run.dead)))
	}
	if len(running) > 0 {
		res.Conclude(fmt.Sprintf("Self-preservation was not engaged on %s (renewsLastMin/threshold), although only %d of %d workers renew: %d replication batches timed out (+%s latency against a %s peer timeout) and were sent again, and the peer applied every copy, counting each heartbeat several times.",
			strings.Join(running, ", "), run.workers-len(run.dead), run.workers, timeouts, s.Latency, s.eu.PeerTimeout))
	}
}
