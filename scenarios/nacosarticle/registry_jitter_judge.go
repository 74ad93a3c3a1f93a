//go:build sdchaos_unconverted

package scenarios

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"sdchaos/caller"
	"sdchaos/report"
)

// judge turns a registry-jitter run into the result (pure).
func (s *registryJitter) judge(ops []report.Op, marks []report.Mark, d time.Duration, reregistered int) *report.Result {
	res := report.NewResult("")
	secs := seconds(d)
	names := make([]string, len(jitterCallers))
	rows := make([]report.Row, len(jitterCallers))
	for i, jc := range jitterCallers {
		names[i], rows[i] = jc.name, report.Row{Key: jc.name, Label: jc.label}
	}
	res.Series = report.PerSecond(ops, names, secs)
	res.Marks, res.TimelineSeconds = marks, d.Seconds()
	res.AddTable(report.SecondsTable("Per-second ok/fail while every client loses the registry (Nacos incident: the naive clients failed everything)", rows, res.Series, marks))
	start, ok1 := report.MarkNamed(marks, "blackhole")
	end, ok2 := report.MarkNamed(marks, "healed: blackhole")
	if !ok1 || !ok2 {
		res.AddCheck(report.Bool("jitter injected and healed", "18 s of loss", false, true, "yes", "no"))
		return res
	}
	m := res.Metrics
	m["jitter_start_s"], m["jitter_end_s"] = start.At.Seconds(), end.At.Seconds()
	m["instances_reregistered"] = float64(reregistered)
	emptySeen := emptyRefreshesAfter(ops, "keep", end.At)
	m["keep.empty_refreshes_after"] = float64(emptySeen)
	for _, n := range names {
		addSeriesMetrics(m, n, res.Series[n])
		m[n+".fail_during"] = float64(countFailed(ops, n, start.At, end.At))
		m[n+".fail_after"] = float64(countFailed(ops, n, end.At, d))
	}
	s.checks(res, ops, start, end, emptySeen)
	s.conclude(res, emptySeen, reregistered)
	return res
}

func (s *registryJitter) checks(res *report.Result, ops []report.Op, start, end report.Mark, emptySeen int) {
	m := res.Metrics
	from := start.At + s.call.Refresh + s.call.RefreshTimeout + schedSlack
	total, failed := 0, 0
	for _, op := range report.Filter(ops, "naive") {
		if op.Scheduled >= from && op.Scheduled < end.At {
			total++
			if op.Outcome != report.OK {
				failed++
			}
		}
	}
	res.AddCheck(report.Between("naive: failed share of the jitter after its first failed refresh", "everything (503, No instances available)",
		pct(failed, total), 100, 100, " %"))
	for _, n := range []string{"keep", "stale_fallback", "empty_protect"} {
		res.AddCheck(report.Equal(n+": failures during the jitter", "0 (remedy)", m[n+".fail_during"], 0, ""))
	}
	for _, n := range []string{"stale_fallback", "empty_protect"} {
		res.AddCheck(report.Equal(n+": failures after the jitter", "0 (remedy)", m[n+".fail_after"], 0, ""))
	}
	keepAfter := m["keep.fail_after"]
	if emptySeen > 0 {
		empty := emptyWindow(ops, "keep", end.At, time.Duration(res.TimelineSeconds*float64(time.Second)))
		want := s.call.Rate * empty.Seconds()
		m["keep.empty_list_s"] = empty.Seconds()
		res.AddCheck(report.Between("keep: failures after the jitter = rate × time its list was empty", "fails while the registry answers empty",
			keepAfter, max(1, want*0.95-2), want*1.05+2, ""))
	} else {
		res.AddCheck(report.Equal("keep: failures after the jitter (the registry never answered empty)", "0", keepAfter, 0, ""))
	}
	last := len(res.Series["naive"].OK) - 1
	due := perSecondDue(s.call.Rate, last+1)
	for _, jc := range jitterCallers {
		ok, why := allOK(res.Series[jc.name], due, last, last+1)
		res.AddCheck(report.Check{Name: jc.name + ": recovered (last second all ok)", Article: "recovers by itself",
			Measured: why, Band: fmt.Sprintf("%d/0 in s%d", due[last], last), Pass: ok})
	}
}

// countFailed counts the failed (or unknown) ops of caller scheduled in [from, to).
func countFailed(ops []report.Op, caller string, from, to time.Duration) int {
	n := 0
	for _, op := range ops {
		if op.Caller == caller && op.Scheduled >= from && op.Scheduled < to && op.Outcome != report.OK {
			n++
		}
	}
	return n
}

// emptyRefreshesAfter counts the caller's successful refreshes answered at
// or after t that listed no instance (a refresh sent during the blackhole is
// held and answered after the heal, so the answer time is what counts).
func emptyRefreshesAfter(ops []report.Op, name string, t time.Duration) int {
	n := 0
	for _, op := range report.Filter(ops, name+caller.RefreshSuffix) {
		if op.End >= t && op.Outcome == report.OK && strings.HasPrefix(op.Target, "0 listed") {
			n++
		}
	}
	return n
}

func (s *registryJitter) conclude(res *report.Result, emptySeen, reregistered int) {
	m := res.Metrics
	res.Conclude(fmt.Sprintf("Every client lost the registry for %.1f s (s%d–s%d) while all instances were alive.",
		m["jitter_end_s"]-m["jitter_start_s"], int(m["jitter_start_s"]), int(m["jitter_end_s"])))
	res.Conclude(fmt.Sprintf("naive failed %.0f requests during the jitter (%.0f after it); keep %.0f, stale_fallback %.0f, empty_protect %.0f during it.",
		m["naive.fail_during"], m["naive.fail_after"], m["keep.fail_during"], m["stale_fallback.fail_during"], m["empty_protect.fail_during"]))
	if reregistered > 0 || emptySeen > 0 {
		res.Conclude(fmt.Sprintf("%d instance(s) had to register again (their leases expired inside etcd during the jitter); keep's refreshes saw the registry empty %d time(s) afterwards and keep failed %.0f requests, stale_fallback %.0f and empty_protect %.0f.",
			reregistered, emptySeen, m["keep.fail_after"], m["stale_fallback.fail_after"], m["empty_protect.fail_after"]))
		res.Conclude("Keeping the cache on errors is not enough once the registry can answer \"empty\": fall back to the last non-empty list, or ignore empty answers.")
	} else {
		res.Conclude(fmt.Sprintf("No lease expired (ttl %s ≥ the jitter), so the registry never answered empty: keeping the list on a failed refresh was enough; clearing it turned a registry blip into a full outage.", s.svc.TTL))
	}
}

// emptyWindow returns how long, from t to end, the caller's list was empty
// because a successful refresh answered empty (until the next non-empty answer).
func emptyWindow(ops []report.Op, name string, t, end time.Duration) time.Duration {
	refreshes := report.Filter(ops, name+caller.RefreshSuffix)
	sort.Slice(refreshes, func(i, j int) bool { return refreshes[i].End < refreshes[j].End })
	var total time.Duration
	since := time.Duration(-1)
	for _, op := range refreshes {
		if op.End < t || op.Outcome != report.OK {
			continue
		}
		empty := strings.HasPrefix(op.Target, "0 listed")
		switch {
		case empty && since < 0:
			since = op.End
		case !empty && since >= 0:
			total += op.End - since
			since = -1
		}
	}
	if since >= 0 {
		total += end - since
	}
	return total
}
