//go:build sdchaos_unconverted

package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"sdchaos/eureka"
	"sdchaos/report"
)

// minutes converts a model duration to minutes.
func minutes(d time.Duration) float64 { return d.Minutes() }

// engagedAt returns when a server's first eviction run after from refused to
// evict (self-preservation), and false if none did.
func engagedAt(h eureka.History, from time.Duration) (time.Duration, bool) {
	for _, r := range h.Evictions {
		if r.At > from && !r.Enabled {
			return r.At, true
		}
	}
	return 0, false
}

// evictedIn counts a server's evictions in [from, to].
func evictedIn(h eureka.History, from, to time.Duration) int {
	n := 0
	for _, r := range h.Evictions {
		if r.At >= from && r.At <= to {
			n += len(r.Evicted)
		}
	}
	return n
}

// emptiedAt returns when a server's registry first became empty by eviction.
func emptiedAt(h eureka.History, from time.Duration) (time.Duration, bool) {
	for _, r := range h.Evictions {
		if r.At > from && len(r.Evicted) > 0 && r.Size == len(r.Evicted) {
			return r.At, true
		}
	}
	return 0, false
}

// capRuns returns how many eviction runs empty a registry of n expired
// leases under the cap size − (int)(size × percent).
func capRuns(n int, percent float64) int {
	runs := 0
	for n > 0 {
		n -= eureka.EvictionLimit(n, percent)
		runs++
	}
	return runs
}

// leaseFactor is 2 with the source's renew bug (lastUpdate = now + duration), else 1.
func leaseFactor(bug bool) time.Duration {
	if bug {
		return 2
	}
	return 1
}

// offBand is when the "off" registries must be empty, in minutes after the
// partition: the first leases expire at k × lease after their last renewal
// (renewed within one renew interval before the partition), all are expired
// by k × lease + one eviction interval, and the cap needs capRuns runs. The
// upper end allows each fixed-delay run 0.5 s of lateness (the task is
// rescheduled from when it actually ran, so lateness adds up), both ends 6 s
// for replicated renewals arriving after the partition began.
func offBand(cfg eureka.Config, workers int) (lo, hi float64) {
	k := leaseFactor(cfg.LeaseBug)
	runs := time.Duration(capRuns(workers, cfg.RenewalPercent) - 1)
	lo = minutes(k*cfg.LeaseDuration - cfg.RenewInterval + runs*cfg.EvictionInterval)
	hi = minutes(k*cfg.LeaseDuration + cfg.EvictionInterval + runs*cfg.EvictionInterval)
	drift := minutes((runs + 3) * 500 * time.Millisecond)
	return lo - 0.1, hi + 0.1 + drift
}

// listedUntil returns when the first successful fetch after from no longer
// listed id.
func listedUntil(fetches []eureka.FetchEvent, id string, from time.Duration) (time.Duration, bool) {
	for _, f := range fetches {
		if f.At > from && f.OK && !slices.Contains(f.IDs, id) {
			return f.At, true
		}
	}
	return 0, false
}

// judge turns a self-preservation run into the result (pure).
func (s *selfPreservation) judge(run *spRun) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds = run.duration.Seconds() / run.factor
	if !run.partOK || !run.deathOK {
		res.AddCheck(report.Bool("partition and worker death injected", "yes", false, true, "yes", "no"))
		return res
	}
	res.AddTable(s.minuteTable(run))
	s.judgeOn(res, run)
	s.judgeOff(res, run)
	s.judgeDead(res, run)
	res.AddTable(s.summaryTable(res, run))
	s.conclude(res, run)
	return res
}

func (s *selfPreservation) judgeOn(res *report.Result, run *spRun) {
	m := res.Metrics
	worst, all, evicted := 0.0, true, 0
	for _, h := range run.on {
		at, ok := engagedAt(h, run.partAt)
		all = all && ok
		worst = math.Max(worst, minutes(at-run.partAt))
		evicted = max(evicted, evictedIn(h, run.partAt, run.partEnd))
	}
	if !all {
		worst = math.NaN()
	}
	m["on.engaged_min"], m["on.evicted"] = worst, float64(evicted)
	bound := minutes(2*run.cfg.EvictionInterval) + 0.1
	res.AddCheck(report.Between("on: self-preservation engaged after the partition (last of 3 servers)", "after about 15 min",
		worst, 0, bound, " min"),
		report.Equal("on: workers evicted during the partition (most on one server)", "none evicted", float64(evicted), 0, ""))
}

func (s *selfPreservation) judgeOff(res *report.Result, run *spRun) {
	m := res.Metrics
	evicted, last, all := run.workers, 0.0, true
	for _, h := range run.off {
		evicted = min(evicted, evictedIn(h, run.partAt, run.partEnd))
		at, ok := emptiedAt(h, run.partAt)
		all = all && ok && at <= run.partEnd
		last = math.Max(last, minutes(at-run.partAt))
	}
	if !all {
		last = math.NaN()
	}
	m["off.evicted"], m["off.all_evicted_min"] = float64(evicted), last
	lo, hi := offBand(run.cfg, run.workers)
	m["off.all_evicted_min.theory_lo"], m["off.all_evicted_min.theory_hi"] = lo, hi
	if hi <= minutes(run.partEnd-run.partAt) {
		res.AddCheck(report.Between("off: every registry emptied by eviction (last of 3 servers)", "— (mass eviction)", last, lo, hi, " min"))
	}
	res.AddCheck(report.Bool("off: every eviction run removed min(expired, size − (int)(size × 0.85))", "—",
		capRespected(run.off, run.cfg.RenewalPercent), true, "yes", "no"))
}

// capRespected checks the source's cap on every evicting run of every server.
func capRespected(hs map[string]eureka.History, percent float64) bool {
	for _, h := range hs {
		for _, r := range h.Evictions {
			if r.Enabled && len(r.Evicted) != min(r.Expired, eureka.EvictionLimit(r.Size, percent)) {
				return false
			}
		}
	}
	return true
}

func (s *selfPreservation) judgeDead(res *report.Result, run *spRun) {
	m := res.Metrics
	gone, ok := listedUntil(run.fetches, run.dead, run.deathAt)
	listed := math.NaN()
	if ok {
		listed = minutes(gone - run.deathAt)
	} else {
		gone = run.duration
	}
	m["dead_listed_min"] = listed
	lo := minutes(run.partEnd - run.deathAt)
	c := run.cfg
	hi := lo + minutes(2*c.EvictionInterval+c.CacheUpdate+c.FetchInterval) + 0.2
	res.AddCheck(report.Between("dead worker listed in r0's registry after it died", "listed for the rest of the partition",
		listed, lo, hi, " min"))
	n, fail := opsInWindow(run.ops, run.r0, run.mc, run.deathAt, gone)
	_, fail3 := opsInWindow(run.ops, run.r3, run.mc, 0, run.duration)
	m["r0.tasks_while_listed"], m["r0.fail_while_listed"], m["r3.fail"] = float64(n), float64(fail), float64(fail3)
	p := 1 / float64(run.workers)
	blo, bhi := binomialBand(p, n, 0.002)
	rate := 0.0
	if n > 0 {
		rate = float64(fail) / float64(n)
	}
	m["r0.fail_rate_while_listed"] = rate
	res.AddCheck(report.Between("r0 (no retry): failed share while the dead worker is listed", "callers keep hitting it",
		rate, blo, bhi, ""),
		report.Equal("r3 (3 retries on other workers): failed tasks", "recovered by retries", float64(fail3), 0, ""))
}

// runIn returns a server's eviction run in [from, to).
func runIn(h eureka.History, from, to time.Duration) (eureka.EvictionRun, bool) {
	for _, r := range h.Evictions {
		if r.At >= from && r.At < to {
			return r, true
		}
	}
	return eureka.EvictionRun{}, false
}

func (s *selfPreservation) minuteTable(run *spRun) report.Table {
	t := report.Table{Title: "Per model minute after the partition: eviction runs of each cluster's servers s1/s2/s3",
		Header: []string{"min", "event", "on: renewsLastMin/threshold (s1)", "on: eviction (s1)", "on: size s1/s2/s3", "on: evicted",
			"off: renewsLastMin/threshold (s1)", "off: size s1/s2/s3", "off: evicted"}}
	first := -int(math.Ceil(minutes(run.partAt))) + 1
	last := int(minutes(run.duration - run.partAt))
	for mi := first; mi < last; mi++ {
		from := run.partAt + time.Duration(mi)*time.Minute
		row := []string{fmt.Sprint(mi), s.eventIn(run, from, from+time.Minute)}
		row = append(row, clusterCells(run.on, from, true)...)
		row = append(row, clusterCells(run.off, from, false)...)
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{
		"min m covers [m, m+1) model minutes after the partition; each server runs its eviction task every 60 s on its own phase",
		"eviction: 'refused' = isLeaseExpirationEnabled() false (self-preservation), 'runs' = leases may be evicted",
		wallNote(run.factor, run.duration),
	}
	return t
}

func (s *selfPreservation) eventIn(run *spRun, from, to time.Duration) string {
	var ev []string
	for _, e := range []struct {
		at   time.Duration
		name string
	}{{run.partAt, "partition"}, {run.deathAt, run.dead + " dies"}, {run.partEnd, "heal"}} {
		if e.at >= from && e.at < to {
			ev = append(ev, e.name)
		}
	}
	return strings.Join(ev, ", ")
}

// clusterCells returns the cells of one cluster for one minute.
func clusterCells(hs map[string]eureka.History, from time.Duration, withState bool) []string {
	names := sortedKeys(hs)
	var sizes, evicted []string
	rate, state := "", ""
	for i, name := range names {
		r, ok := runIn(hs[name], from, from+time.Minute)
		if !ok {
			sizes, evicted = append(sizes, "·"), append(evicted, "·")
			continue
		}
		sizes = append(sizes, fmt.Sprint(r.Size-len(r.Evicted)))
		evicted = append(evicted, fmt.Sprint(len(r.Evicted)))
		if i == 0 {
			rate, state = fmt.Sprintf("%d/%d", r.RenewsLastMin, r.Threshold), "runs"
			if !r.Enabled {
				state = "refused"
			}
		}
	}
	cells := []string{rate}
	if withState {
		cells = append(cells, state)
	}
	return append(cells, strings.Join(sizes, "/"), strings.Join(evicted, "/"))
}

func (s *selfPreservation) summaryTable(res *report.Result, run *spRun) report.Table {
	m := res.Metrics
	lo, hi := m["off.all_evicted_min.theory_lo"], m["off.all_evicted_min.theory_hi"]
	engaged := map[string]string{}
	for name, h := range run.on {
		if at, ok := engagedAt(h, run.partAt); ok {
			engaged[name] = fmt.Sprintf("%.2f", minutes(at-run.partAt))
		}
	}
	return report.Table{Title: "Article, source rule and model",
		Header: []string{"what", "article", "source rule", "measured (model)"},
		Rows: [][]string{
			{"self-preservation shows up", "after about 15 minutes",
				"first 60-s eviction run whose last full minute had renewsLastMin ≤ threshold (the 15 min is the threshold-recount interval)",
				fmt.Sprintf("after %s min (per server: %s)", report.Num(round2(m["on.engaged_min"])), fmtStrMap(engaged))},
			{"workers evicted during the partition, self-preservation on", "none", "none once engaged", fmt.Sprintf("%.0f", m["on.evicted"])},
			{"workers evicted, self-preservation off", "—", fmt.Sprintf("all, at most size − (int)(size × 0.85) per run: empty in %.1f–%.1f min", lo, hi),
				fmt.Sprintf("%.0f of %d, empty after %s min", m["off.evicted"], run.workers, fmtNum(m["off.all_evicted_min"]))},
			{"a worker dying during the partition stays listed", "yes; callers recover only by their own timeouts/retries",
				"until the first run after the heal with a full minute above threshold, + cache + fetch", fmt.Sprintf("%s min", fmtNum(m["dead_listed_min"]))},
			{"scheduler without retries while it is listed", "tasks routed to the dead worker time out",
				fmt.Sprintf("1/%d of tasks fail", run.workers), fmt.Sprintf("%.0f of %.0f fail (%.2f %%)", m["r0.fail_while_listed"], m["r0.tasks_while_listed"], 100*m["r0.fail_rate_while_listed"])},
			{"scheduler with 3 retries on other workers", "recovers", "no task fails", fmt.Sprintf("%.0f fail", m["r3.fail"])},
		}}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return report.Num(round2(v))
}

func fmtStrMap(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+" "+m[k])
	}
	return strings.Join(parts, ", ")
}

func (s *selfPreservation) conclude(res *report.Result, run *spRun) {
	m := res.Metrics
	res.Conclude(fmt.Sprintf("The article saw self-preservation about 15 minutes into the partition; the model, following the source, engaged %s min after it on the last of its 3 servers — at the first eviction run whose last full minute of renewals fell to the threshold. This model measured the source rule, not the article's 15 minutes.",
		fmtNum(m["on.engaged_min"])))
	res.Conclude(fmt.Sprintf("With self-preservation %.0f workers were evicted during the %s partition; without it the servers evicted %.0f of %d, emptying their registries after %s min, at most size − (int)(size × 0.85) per run.",
		m["on.evicted"], fmtModel(run.partEnd-run.partAt), m["off.evicted"], run.workers, fmtNum(m["off.all_evicted_min"])))
	res.Conclude(fmt.Sprintf("The worker that died %s into the partition stayed in the scheduler's registry for %s min; meanwhile the scheduler without retries failed %.0f of %.0f tasks and the one with 3 retries %.0f: only the caller's retries hid the dead instance.",
		fmtModel(run.deathAt-run.partAt), fmtNum(m["dead_listed_min"]), m["r0.fail_while_listed"], m["r0.tasks_while_listed"], m["r3.fail"]))
}
