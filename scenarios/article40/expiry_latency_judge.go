package article40

import (
	"fmt"
	"math"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// armMeasure is what the crash runs of one strategy measured, in seconds.
type armMeasure struct {
	arm latencyArm
	// lat holds each run's last heartbeat → gone (a run that gave up
	// counts with its give-up time, which is beyond every band).
	lat                      []float64
	gaveUp, staleLen         int
	min, median, max, spread float64
}

// latencyMeasure is what an expiry-latency run measured.
type latencyMeasure struct {
	arms []armMeasure
	// dereg holds each deregistration's duration in µs; deregLeft counts
	// those after which Lookup still listed the instance.
	dereg     []float64
	deregLeft int
}

// measure fills the measurement from the history's ops.
func (s *expiryLatency) measure(h *history.History) latencyMeasure {
	var m latencyMeasure
	for _, a := range s.arms() {
		am := armMeasure{arm: a, min: math.NaN(), median: math.NaN(), max: math.NaN(), spread: math.NaN()}
		for _, op := range history.Filter(h.Ops, a.key) {
			am.lat = append(am.lat, op.Latency().Seconds())
			if op.Outcome != history.OK {
				am.gaveUp++
			}
			if op.Count > 0 {
				am.staleLen++
			}
		}
		if len(am.lat) > 0 {
			am.min, am.max = report.MinMax(am.lat)
			am.median, am.spread = report.Median(am.lat), am.max-am.min
		}
		m.arms = append(m.arms, am)
	}
	for _, op := range history.Filter(h.Ops, opDeregister) {
		m.dereg = append(m.dereg, float64(op.Latency())/float64(time.Microsecond))
		if op.Outcome != history.OK {
			m.deregLeft++
		}
	}
	return m
}

// articleSetup reports whether the run has the article's ttl and scan intervals.
func (s *expiryLatency) articleSetup() bool {
	return s.TTL == 2*time.Second && s.ScanSlow == time.Second && s.ScanFast == 200*time.Millisecond
}

// Judge turns the recorded runs into the result (pure).
func (s *expiryLatency) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.Title = fmt.Sprintf("article 40.1: time for a crashed instance to disappear (ttl %s, %d runs each)", s.TTL, s.Runs)
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m := s.measure(h)
	res.AddTable(s.table(m))
	for _, am := range m.arms {
		s.armMetrics(res.Metrics, am)
		res.AddCheck(s.armChecks(am)...)
	}
	res.AddCheck(s.deregChecks(m)...)
	if len(m.dereg) > 0 {
		lo, hi := report.MinMax(m.dereg)
		res.Metrics["deregister.min_us"], res.Metrics["deregister.max_us"] = lo, hi
		res.Metrics["deregister.median_us"] = report.Median(m.dereg)
	}
	s.conclude(res, m)
	if g, ok := paceGate(h.Ops); ok {
		res.Gates = append(res.Gates, g)
	}
	return res
}

// paceLimit is how late the watches' own timers and polls may be before a
// run is invalid: half of latencySlack, whose other half covers the
// registries' own timers and the Lookup itself.
const paceLimit = latencySlack / 2

// paceGate judges the watches' timing: a starved machine (a loaded CI) wakes
// timers late, and a latency measured then says nothing about the expiry
// strategy. False when the history has no pace ops (saved before them).
func paceGate(ops []history.Op) (report.Gate, bool) {
	var worst time.Duration
	n := 0
	for _, op := range history.Filter(ops, opPace) {
		n++
		worst = max(worst, op.Start-op.Scheduled, time.Duration(op.Count)*time.Microsecond)
	}
	if n == 0 {
		return report.Gate{}, false
	}
	return report.Gate{Name: "the watches' timers and 1 ms polls kept their time (the harness was not starved)", OK: worst <= paceLimit,
		Measured: fmt.Sprintf("worst lateness %s over %d watches", worst.Round(10*time.Microsecond), n),
		Limit:    fmt.Sprintf("≤ %s (half the %s slack)", paceLimit, latencySlack)}, true
}

func (s *expiryLatency) armMetrics(mt report.Metrics, am armMeasure) {
	if len(am.lat) == 0 {
		return
	}
	k := am.arm.key
	mt[k+".min_s"], mt[k+".median_s"], mt[k+".max_s"], mt[k+".spread_s"] = am.min, am.median, am.max, am.spread
	mt[k+".runs"], mt[k+".stale_len_runs"] = float64(len(am.lat)), float64(am.staleLen)
}

func (s *expiryLatency) table(m latencyMeasure) report.Table {
	t := report.Table{Title: "Last heartbeat → gone from Lookup",
		Header: []string{"expiry implementation", "runs", "min", "median", "max", "article min", "article median", "article max"}}
	for _, am := range m.arms {
		art := [3]string{"—", "—", "—"}
		if am.arm.hasArticle {
			for i, v := range am.arm.article {
				art[i] = fmt.Sprintf("%.2f s", v)
			}
		}
		t.Rows = append(t.Rows, []string{am.arm.label, fmt.Sprint(len(am.lat)), fmtSec(am.min), fmtSec(am.median), fmtSec(am.max),
			art[0], art[1], art[2]})
	}
	if len(m.dereg) > 0 {
		lo, hi := report.MinMax(m.dereg)
		t.Rows = append(t.Rows, []string{"control: explicit deregister", fmt.Sprint(len(m.dereg)), fmtUs(lo),
			fmtUs(report.Median(m.dereg)), fmtUs(hi), "", "59 µs", ""})
	}
	t.Notes = []string{fmt.Sprintf("Crash offsets are uniform over the scan interval (seeded); Lookup is polled every %s. "+
		"The article's figures are for ttl 2 s with scans every 1 s and 0.2 s; it had no heap run.", latencyPoll)}
	return t
}

// armChecks judges one strategy's min, median and max (and, for a scan,
// the spread; for lazy, the stale Len); invalid with fewer than 2 runs.
func (s *expiryLatency) armChecks(am armMeasure) []report.Check {
	exps, vals := s.armExpects(am)
	out := make([]report.Check, len(exps))
	for i, e := range exps {
		if n := len(am.lat); n < 2 {
			out[i] = e.Invalid(fmt.Sprintf("%d crash runs of %s recorded; min, median and max need at least 2", n, am.arm.key))
			continue
		}
		out[i] = e.Judge(vals[i])
	}
	return out
}

// armExpects returns one strategy's expectations and the measured values they judge.
func (s *expiryLatency) armExpects(am armMeasure) ([]report.Expect, []float64) {
	a, n := am.arm, len(am.lat)
	ttl, iv, slack := s.TTL.Seconds(), a.interval.Seconds(), latencySlack.Seconds()
	qlo, qhi := uniformMedianBand(n)
	basis := "lease due at last heartbeat + ttl, collected at once (lazy: at the Lookup; heap: at its timer) + 30 ms polling and scheduling"
	medBasis := basis
	if iv > 0 {
		basis = "due at last heartbeat + ttl, collected at the next scan tick: + a delay in [0, interval) + 30 ms polling and scheduling"
		medBasis = fmt.Sprintf("ttl + interval × the 10⁻⁴…1 − 10⁻⁴ quantiles (%.2f…%.2f) of the median of %d uniform phases, + 30 ms", qlo, qhi, n)
	}
	n20, mid := articleCrashRuns, (articleCrashRuns+1)/2
	exps := []report.Expect{
		agreeOrder(report.Band(a.key+": min", ttl, ttl+iv+slack, " s").Digits(3).From(basis).Says(s.armClaim(a, 0, "min")), iv, orderStatWidth(1, n20), "smallest"),
		agreeOrder(report.Band(a.key+": median", ttl+qlo*iv, ttl+qhi*iv+slack, " s").Digits(3).From(medBasis).Says(s.armClaim(a, 1, "median")), iv, orderStatWidth(mid, n20), "median"),
		agreeOrder(report.Band(a.key+": max", ttl, ttl+iv+slack, " s").Digits(3).From(basis).Says(s.armClaim(a, 2, "max")), iv, orderStatWidth(n20, n20), "largest"),
	}
	vals := []float64{am.min, am.median, am.max}
	if iv > 0 {
		r := uniformRangeLow(n)
		exps = append(exps, report.Band(a.key+": spread (max − min)", r*iv, iv+slack, " s").Digits(3).
			From(fmt.Sprintf("range of %d uniform delays in [0, interval): ≥ %.2f × interval with probability 1 − 10⁻⁴, ≤ interval + 30 ms", n, r)).
			Says(report.SaysValue(fmt.Sprintf("%.2f s", a.spread), a.spread).OnlyIf(s.articleSetup())))
		exps[len(exps)-1] = agreeOrder(exps[len(exps)-1], iv, rangeWidth(articleCrashRuns), "range")
		vals = append(vals, am.spread)
	}
	if a.key == "lazy" {
		exps = append(exps, report.Exactly("lazy: runs where Len() still counted the instance Lookup dropped", float64(n), "").
			From("lazy collects only in Lookup, so Len() read just before it counts the due instance").
			Says(report.Says("anything other than lookup still sees the stale state")))
		vals = append(vals, float64(am.staleLen))
	}
	return exps, vals
}

// agreeOrder sets the agreement of an order statistic of the crash
// delays with the article's: the width of its central 95 % over the
// article's 20 runs (in units of the scan interval), plus one step of the
// article's two-decimal figures (0.01 s; its poll step is not given).
func agreeOrder(e report.Expect, iv, width float64, which string) report.Expect {
	tol := width*iv + articleStep
	return e.Within(tol, fmt.Sprintf("the %s of %d uniform phases in [0, %s s) spreads over %.3f s at 95 %%, + %s s for the article's 2-decimal figures",
		which, articleCrashRuns, report.Num(iv), width*iv, report.Num(articleStep))).
		Spread("each crash's delay is ttl plus its phase against the scan ticker (seeded); the article's figure is one sample of the spread the rule allows")
}

// articleStep is the resolution of the article's expiry figures (2 decimals, seconds).
const articleStep = 0.01

// armClaim is the article's figure i (min, median, max) for a strategy.
func (s *expiryLatency) armClaim(a latencyArm, i int, what string) report.Claim {
	if !a.hasArticle {
		return report.Says("no heap run in the article")
	}
	return report.SaysValue(fmt.Sprintf("%s %.2f s", what, a.article[i]), a.article[i]).OnlyIf(s.articleSetup())
}

// deregChecks: the deregistered instance is gone when the call returns.
// The call and the Lookup after it wait on no timer, so their time is
// their own cost plus what the scheduler takes from them on a shared host:
// at most latencySlack, the run's allowance for scheduling.
func (s *expiryLatency) deregChecks(m latencyMeasure) []report.Check {
	slow := report.AtMost("deregister: slowest call until gone", float64(latencySlack/time.Microsecond), " µs").Digits(1).
		From("a map delete under a mutex and one Lookup; no timer is involved: its cost + 30 ms scheduling").Says(report.SaysValue("59 µs", 59)).
		WithinFactor(2, "a latency of one call measured on another machine: within a factor of 2").
		Spread("a map delete's time is the host's: ours and the article's both lie far below the band; no rule fixes the figure")
	left := report.Exactly("deregister: calls after which Lookup still listed the instance", 0, "").
		From("Deregister removes the instance before it returns").Says(report.SaysValue("gone when the call returns", 0)).SameCount()
	if len(m.dereg) == 0 {
		why := "no deregister call was recorded"
		return []report.Check{slow.Invalid(why), left.Invalid(why)}
	}
	_, hi := report.MinMax(m.dereg)
	return []report.Check{slow.Judge(hi), left.Judge(float64(m.deregLeft))}
}

// conclude writes the conclusion from the measured figures.
func (s *expiryLatency) conclude(res *report.Result, m latencyMeasure) {
	ttl := s.TTL.Seconds()
	for _, am := range m.arms {
		a := am.arm
		switch {
		case len(am.lat) == 0:
			res.Conclude(fmt.Sprintf("%s: no crash run was recorded.", a.label))
		case a.interval == 0:
			res.Conclude(fmt.Sprintf("%s: gone %s after the ttl (median; at most %s) — %s.",
				a.label, fmtMs(am.median-ttl), fmtMs(am.max-ttl), lateWord(am.max-ttl <= latencySlack.Seconds())))
		default:
			frac := am.spread / a.interval.Seconds()
			res.Conclude(fmt.Sprintf("%s: gone %s to %s after the ttl (median %s); the spread is %.0f %% of the interval: the delay is ttl plus a wait of up to one interval, set by the crash's phase against the scan ticker.",
				a.label, fmtMs(am.min-ttl), fmtMs(am.max-ttl), fmtMs(am.median-ttl), 100*frac))
		}
		if am.gaveUp > 0 {
			res.Conclude(fmt.Sprintf("%s: %d runs were still listed a second after the latest the rule allows.", a.label, am.gaveUp))
		}
	}
	if lazy := m.arms[0]; len(lazy.lat) > 0 {
		res.Conclude(fmt.Sprintf("In %d of %d lazy runs Len() still counted the dead instance when Lookup first left it out: "+
			"lazy expiry hides the instance from Lookup only; counts and anything else see the stale state.", lazy.staleLen, len(lazy.lat)))
	}
	if len(m.dereg) > 0 {
		_, hi := report.MinMax(m.dereg)
		res.Conclude(fmt.Sprintf("Explicit deregister: gone when the call returned in %d of %d calls, median %s, max %s (article 59 µs); a lease expiry takes at least the ttl (%s).",
			len(m.dereg)-m.deregLeft, len(m.dereg), fmtUs(report.Median(m.dereg)), fmtUs(hi), s.TTL))
	}
}

func lateWord(inBand bool) string {
	if inBand {
		return "no scan delay, only polling and wake-up latency"
	}
	return "later than polling and wake-up latency explain (a loaded machine?)"
}

func fmtSec(s float64) string {
	if math.IsNaN(s) {
		return "—"
	}
	return fmt.Sprintf("%.3f s", s)
}
func fmtMs(s float64) string  { return fmt.Sprintf("%.1f ms", s*1000) }
func fmtUs(us float64) string { return fmt.Sprintf("%.1f µs", us) }
