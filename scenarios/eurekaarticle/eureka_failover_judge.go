//go:build sdchaos_unconverted

package scenarios

import (
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/eureka"
	"sdchaos/report"
)

// switchOutcome is what one scheduler went through after the kill.
type switchOutcome struct {
	switched  bool
	switchAt  time.Duration // model, from the recorder's zero
	to        string
	failed    int // failed fetch attempts after the kill
	minListed int // fewest workers listed by a successful fetch after the kill (-1: none)
}

func switchOf(f failoverSched, killAt time.Duration) switchOutcome {
	o := switchOutcome{minListed: -1}
	for _, ev := range f.fetches {
		if ev.At < killAt {
			continue
		}
		for _, a := range ev.Attempts {
			if !a.OK(eureka.ReqFetch) {
				o.failed++
			}
		}
		if !ev.OK {
			continue
		}
		if !o.switched {
			o.switched, o.switchAt, o.to = true, ev.At, ev.Attempts[len(ev.Attempts)-1].Server
		}
		if o.minListed < 0 || len(ev.IDs) < o.minListed {
			o.minListed = len(ev.IDs)
		}
	}
	return o
}

// fetchKey is the metric suffix of a fetch interval: "@15" for 15 s.
func fetchKey(d time.Duration) string { return "@" + report.Num(d.Seconds()) }

// judge turns a failover run into the result (pure).
func (s *eurekaFailover) judge(run *failoverRun) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds = run.duration.Seconds() / run.factor
	m := res.Metrics
	mc := modelClock{factor: run.factor}
	t := report.Table{Title: "Failover after kill -9 of the schedulers' server (model time)",
		Header: []string{"scheduler", "switched to", "next good fetch after the kill", "switch", "theory", "failed attempts", "tasks ok/fail", "fewest workers listed", "article"}}
	lost, failedTasks := 0, 0
	for _, f := range run.scheds {
		o := switchOf(f, run.killAt)
		ok, fail := countOps(run.ops, f.name)
		failedTasks += fail
		sw := math.NaN()
		if o.switched {
			sw = (o.switchAt - run.killAt).Seconds()
		}
		m["switch_s"+fetchKey(f.fetch)], m["failed_attempts"+fetchKey(f.fetch)] = sw, float64(o.failed)
		if o.minListed >= 0 {
			lost = max(lost, run.workers-o.minListed)
		} else {
			lost = run.workers
		}
		t.Rows = append(t.Rows, []string{f.name, hostOf(o.to), fmtAt(o.switched, o.switchAt), secStr(sw),
			fmt.Sprintf("next fetch tick: 0–%s", fmtModel(f.fetch)), fmt.Sprint(o.failed), fmt.Sprintf("%d/%d", ok, fail),
			fmt.Sprintf("%d of %d", max(o.minListed, 0), run.workers), "switch in about 15–30 s"})
		res.AddCheck(report.Between("switch after the kill ("+f.name+")", "about 15–30 s", sw, 0, f.fetch.Seconds()+1, " s"),
			report.Equal("failed fetch attempts ("+f.name+")", "— (source: the dead server twice, 3 servers)", float64(o.failed), 2, ""))
	}
	m["tasks.fail"], m["workers_lost"] = float64(failedTasks), float64(lost)
	t.Notes = append(t.Notes, fmt.Sprintf("killed %s at %s; %s", hostOf(run.killed), fmtModel(run.killAt), wallNote(run.factor, run.duration)),
		fmt.Sprintf("registry size on the surviving servers at the end: %s (of %d workers)", fmtSizes(run.finalLen), run.workers))
	res.AddTable(t)
	res.AddTable(s.windowTable(run, mc))
	never := s.neverStops(run, mc)
	res.AddCheck(report.Equal("failed tasks", "scheduling never stops", float64(failedTasks), 0, ""),
		report.Bool("every 10 model seconds after the kill had successful tasks", "scheduling never stops", never, true, "yes", "no"),
		report.Equal("workers lost from the schedulers' registries", "no worker lost", float64(lost), 0, ""))
	s.conclude(res, run)
	return res
}

func countOps(ops []report.Op, caller string) (ok, fail int) {
	for _, op := range report.Filter(ops, caller) {
		if op.Outcome == report.OK {
			ok++
		} else {
			fail++
		}
	}
	return ok, fail
}

func hostOf(url string) string { return strings.TrimPrefix(url, "http://") }

func fmtAt(ok bool, at time.Duration) string {
	if !ok {
		return "none"
	}
	return fmt.Sprintf("at %.1f s", at.Seconds())
}

func fmtSizes(m map[string]int) string {
	var parts []string
	for _, name := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", name, m[name]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return sorted(keys)
}

const failoverWindow = 10 * time.Second

// windowCounts buckets a caller's ops by model window of their scheduled time.
func windowCounts(ops []report.Op, caller string, mc modelClock, window time.Duration, n int) (ok, fail []int) {
	ok, fail = make([]int, n), make([]int, n)
	for _, op := range report.Filter(ops, caller) {
		w := int(mc.ofReal(op.Scheduled) / window)
		if w < 0 || w >= n {
			continue
		}
		if op.Outcome == report.OK {
			ok[w]++
		} else {
			fail[w]++
		}
	}
	return ok, fail
}

func (s *eurekaFailover) windowTable(run *failoverRun, mc modelClock) report.Table {
	n := int(math.Ceil(float64(run.duration) / float64(failoverWindow)))
	header := []string{"scheduler"}
	for i := range n {
		h := fmt.Sprintf("%d–%ds", i*10, (i+1)*10)
		if int(run.killAt/failoverWindow) == i {
			h += "*"
		}
		header = append(header, h)
	}
	t := report.Table{Title: "Tasks ok/fail per 10 model seconds", Header: header}
	for _, f := range run.scheds {
		ok, fail := windowCounts(run.ops, f.name, mc, failoverWindow, n)
		row := []string{f.name}
		for i := range n {
			row = append(row, fmt.Sprintf("%d/%d", ok[i], fail[i]))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{fmt.Sprintf("* kill -9 of %s at %.1f s; tasks are paced in real time (%g/s), so a model window holds %g/s × 10/%g",
		hostOf(run.killed), run.killAt.Seconds(), s.Rate, s.Rate, run.factor)}
	return t
}

// neverStops reports whether every full window after the kill had a success.
func (s *eurekaFailover) neverStops(run *failoverRun, mc modelClock) bool {
	n := int(run.duration / failoverWindow)
	for _, f := range run.scheds {
		ok, _ := windowCounts(run.ops, f.name, mc, failoverWindow, n)
		for i := int(run.killAt / failoverWindow); i < n; i++ {
			if ok[i] == 0 {
				return false
			}
		}
	}
	return true
}

func (s *eurekaFailover) conclude(res *report.Result, run *failoverRun) {
	m := res.Metrics
	for _, f := range run.scheds {
		sw := m["switch_s"+fetchKey(f.fetch)]
		if math.IsNaN(sw) {
			res.Conclude(fmt.Sprintf("The scheduler fetching every %s never fetched successfully after the kill.", fmtModel(f.fetch)))
			continue
		}
		res.Conclude(fmt.Sprintf("Fetching every %s, the scheduler switched %.1f s after the kill (its next fetch tick; at most %s), after %.0f failed attempts on the dead server.",
			fmtModel(f.fetch), sw, fmtModel(f.fetch), m["failed_attempts"+fetchKey(f.fetch)]))
	}
	res.Conclude(fmt.Sprintf("Meanwhile %.0f tasks failed and %.0f workers went missing: the cached registry kept scheduling going while the client found a live server; the article's 15–30 s is one fetch interval plus its detection, which the model bounds by the fetch interval.",
		m["tasks.fail"], m["workers_lost"]))
}
