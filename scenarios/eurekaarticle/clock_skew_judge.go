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

// predictFalse returns the range of false evictions the lease rule allows
// when the wall clock steps forward by skew, lead before an eviction run,
// while every worker renews every renew interval. A lease last renewed a ago
// looks expired iff skew > k × lease − a, where a < renew; leases renewed
// after the step are on the new clock. So none expire if skew ≤ k × lease −
// renew; if skew > k × lease, every lease not renewed since the step does
// (at least workers × (1 − lead/renew) − 2 of them), capped per run.
func predictFalse(cfg eureka.Config, skew, lead time.Duration, workers int) (lo, hi int) {
	k := leaseFactor(cfg.LeaseBug)
	limit := eureka.EvictionLimit(workers, cfg.RenewalPercent)
	switch {
	case skew <= k*cfg.LeaseDuration-cfg.RenewInterval:
		return 0, 0
	case skew > k*cfg.LeaseDuration:
		stale := int(float64(workers)*(1-lead.Seconds()/cfg.RenewInterval.Seconds())) - 2
		return min(limit, max(stale, 0)), limit
	}
	return 0, limit
}

// skewOutcome is what one cluster went through after the step.
type skewOutcome struct {
	first      eureka.EvictionRun // the skewed server's first run after the step
	hasFirst   bool
	falseEvict int
	peerLoss   int     // evictions and cancels on the peers after the step
	backMax    float64 // s until the last evicted worker was back on the skewed server (NaN: never)
}

func outcomeOfSkew(r skewResult) skewOutcome {
	o := skewOutcome{}
	evictedAt := map[string]time.Duration{}
	for _, run := range r.skewed.Evictions {
		if run.At <= r.stepAt {
			continue
		}
		if !o.hasFirst {
			o.first, o.hasFirst = run, true
		}
		o.falseEvict += len(run.Evicted)
		for _, id := range run.Evicted {
			evictedAt[id] = run.At
		}
	}
	for _, h := range r.peers {
		for _, e := range h.Events {
			if e.At > r.stepAt && (e.Kind == eureka.EventEvict || e.Kind == eureka.EventCancel) {
				o.peerLoss++
			}
		}
	}
	o.backMax = backWithin(r.skewed, evictedAt)
	return o
}

// backWithin returns the longest time from an eviction to the next register
// of the same instance on that server (NaN if one never came back, or if
// nothing was evicted).
func backWithin(h eureka.History, evictedAt map[string]time.Duration) float64 {
	if len(evictedAt) == 0 {
		return math.NaN()
	}
	worst := 0.0
	for id, at := range evictedAt {
		back := math.NaN()
		for _, e := range h.Events {
			if e.Kind == eureka.EventRegister && e.ID == id && e.At >= at {
				back = (e.At - at).Seconds()
				break
			}
		}
		if math.IsNaN(back) {
			return math.NaN()
		}
		worst = math.Max(worst, back)
	}
	return worst
}

func metricPrefix(r skewResult) string {
	if r.primary {
		return onOff(r.sp) + "."
	}
	return "other_lease." + onOff(r.sp) + "."
}

// judge turns a clock-skew run into the result (pure).
func (s *clockSkew) judge(run *skewRun) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds = run.duration.Seconds() / run.factor
	t := report.Table{Title: fmt.Sprintf("s1's wall clock steps +%s, %s before an eviction run; every worker alive and renewing", fmtModel(s.Skew), fmtModel(s.Lead)),
		Header: []string{"cluster", "lease rule", "self-preservation", "step at", "run after the step", "renewsLastMin / threshold", "eviction",
			"false evictions", "predicted", "peers' evictions", "evicted back on s1 within"}}
	cfg := s.eu.config()
	outs := map[string]skewOutcome{}
	for _, r := range run.cases {
		if !r.stepped {
			res.AddCheck(report.Bool("clock of "+r.label+"-s1 stepped", "yes", false, true, "yes", "no"))
			continue
		}
		o := outcomeOfSkew(r)
		outs[metricPrefix(r)] = o
		c := cfg
		c.LeaseBug = r.leaseBug
		lo, hi := predictFalse(c, s.Skew, s.Lead, r.workers)
		t.Rows = append(t.Rows, skewRow(r, o, lo, hi))
		s.checkCase(res, r, o, lo, hi)
	}
	s.checkPairs(res, outs)
	t.Notes = []string{"lease rule: 'bug' = Lease.renew() stores now + duration (a renewed lease lives 2 × 90 s), 'fixed' = the intended now",
		"predicted: from the lease rule (see 'experiments help clock-skew'); the cap is size − (int)(size × 0.85) per run",
		wallNote(run.factor, run.duration)}
	res.AddTable(t)
	s.conclude(res, run, outs)
	return res
}

func skewRow(r skewResult, o skewOutcome, lo, hi int) []string {
	first, rate, state := "—", "—", "—"
	if o.hasFirst {
		first = fmt.Sprintf("+%.1f s", (o.first.At - r.stepAt).Seconds())
		rate = fmt.Sprintf("%d / %d", o.first.RenewsLastMin, o.first.Threshold)
		state = "runs"
		if !o.first.Enabled {
			state = "refused"
		}
	}
	pred := fmt.Sprint(lo)
	if hi != lo {
		pred = fmt.Sprintf("%d–%d", lo, hi)
	}
	return []string{r.label, leaseLabel(r.leaseBug), onOff(r.sp), fmt.Sprintf("%.1f s", r.stepAt.Seconds()), first, rate, state,
		fmt.Sprint(o.falseEvict), pred, fmt.Sprint(o.peerLoss), secStr(o.backMax)}
}

func (s *clockSkew) checkCase(res *report.Result, r skewResult, o skewOutcome, lo, hi int) {
	p := metricPrefix(r)
	res.Metrics[p+"false_evictions"], res.Metrics[p+"peer_evictions"] = float64(o.falseEvict), float64(o.peerLoss)
	res.Metrics[p+"back_s.max"] = o.backMax
	res.AddCheck(report.Between(r.label+": false evictions on s1", "premature expiry", float64(o.falseEvict), float64(lo), float64(hi), ""),
		report.Equal(r.label+": evictions and cancels on the peers", "—", float64(o.peerLoss), 0, ""))
	if r.sp {
		enabled := o.hasFirst && o.first.Enabled
		res.AddCheck(report.Bool(r.label+": renewsLastMin stayed above the threshold at the run after the step",
			"false self-preservation", enabled, true, "yes (no protection)", "no"))
	}
	if o.falseEvict > 0 {
		res.AddCheck(report.AtMost(r.label+": evicted workers back on s1 within", "—", o.backMax,
			(s.eu.config().RenewInterval + 2*time.Second).Seconds(), " s"))
	}
}

func (s *clockSkew) checkPairs(res *report.Result, outs map[string]skewOutcome) {
	for _, pre := range []string{"", "other_lease."} {
		on, ok1 := outs[pre+"on."]
		off, ok2 := outs[pre+"off."]
		if !ok1 || !ok2 {
			continue
		}
		name := "self-preservation on loses as many as off"
		if pre != "" {
			name += " (other lease rule)"
		}
		res.AddCheck(report.Equal(name, "self-preservation may not protect", float64(on.falseEvict), float64(off.falseEvict), ""))
	}
}

func (s *clockSkew) conclude(res *report.Result, run *skewRun, outs map[string]skewOutcome) {
	for _, r := range run.cases {
		o, ok := outs[metricPrefix(r)]
		if !ok || !r.primary || !r.sp {
			continue
		}
		if o.hasFirst {
			res.Conclude(fmt.Sprintf("At the first eviction run after the step, s1 counted %d renewals in its last minute against a threshold of %d: the minute buckets follow the monotonic timer, not the stepped wall clock, so self-preservation did not engage.",
				o.first.RenewsLastMin, o.first.Threshold))
		}
	}
	var parts []string
	for _, r := range run.cases {
		o := outs[metricPrefix(r)]
		parts = append(parts, fmt.Sprintf("%s lease, self-preservation %s: %d", leaseLabel(r.leaseBug), onOff(r.sp), o.falseEvict))
	}
	res.Conclude(fmt.Sprintf("False evictions on s1 after a +%s step — %s.", fmtModel(s.Skew), strings.Join(parts, "; ")))
	cfg := s.eu.config()
	res.Conclude(fmt.Sprintf("With the source's renew bug a renewed lease lives 2 × %s, so a step up to %s evicts nobody; with the intended expiry any step over %s makes every lease not renewed since the step look expired, and only the cap (%d per run of %d) limits the loss — on and off alike.",
		fmtModel(cfg.LeaseDuration), fmtModel(2*cfg.LeaseDuration-cfg.RenewInterval), fmtModel(cfg.LeaseDuration),
		eureka.EvictionLimit(s.eu.Workers, cfg.RenewalPercent), s.eu.Workers))
	res.Conclude("Evictions are not replicated, so the peers kept every worker; each evicted worker came back on s1 at its next heartbeat (404, re-register) or through a peer's replicated heartbeat (404, register).")
}
