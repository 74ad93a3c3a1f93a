package article47

import (
	"fmt"
	"math"
	"time"

	"sdchaos/caller"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// cacheMeasure is what a cache-on-failure run measured.
type cacheMeasure struct {
	secs   int
	series map[string]report.Series
	outage history.Event
	// keepBad and clearBad count the seconds that were not all ok (for
	// clear, before the outage); the texts describe the first one.
	keepBad, clearBad int
	keepWhy, clearWhy string
	clearFailed       bool
	firstFail         history.Op
	firstFailDelay    time.Duration // from the outage
	okAfterFirst      int
	keepTotal, keepOK int
}

// measure fills the measurement from the history; false when the outage
// never happened (the run cannot judge).
func (s *cacheOnFailure) measure(h *history.History) (cacheMeasure, bool) {
	m := cacheMeasure{secs: report.Seconds(h.Timeline)}
	m.series = report.PerSecond(h.Ops, append(append([]string{"keep", "clear"}, realNames(s.Real.On)...), userNames(s.Client)...), m.secs)
	outage, ok := h.Events.First(history.KillMembers, history.Inject)
	if !ok {
		return m, false
	}
	m.outage = outage
	due := caller.PerSecondDue(s.Call.Rate, m.secs)
	m.keepBad, m.keepWhy = report.BadSeconds(m.series["keep"], due, 0, m.secs)
	m.clearBad, m.clearWhy = report.BadSeconds(m.series["clear"], due, 0, outage.Second())
	m.firstFail, m.clearFailed = report.FirstFailure(h.Ops, "clear")
	if m.clearFailed {
		m.firstFailDelay = m.firstFail.Scheduled - outage.At
		m.okAfterFirst, _ = report.Count(okOnly(h.Ops), "clear", m.firstFail.Scheduled, h.Timeline)
	}
	keepOK, keepFail := m.series["keep"].Total()
	m.keepOK, m.keepTotal = keepOK, keepOK+keepFail
	return m, true
}

// okOnly returns the successful ops.
func okOnly(ops []history.Op) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.Outcome == history.OK {
			out = append(out, op)
		}
	}
	return out
}

// firstFailBand is where clear's first failure must fall after the outage:
// at its next refresh (within one refresh period), once that refresh has
// failed (at once with a fail-fast refresh, at its deadline with gRPC), at
// the next send.
func (s *cacheOnFailure) firstFailBand() (lo, hi time.Duration, basis string) {
	send := time.Duration(float64(time.Second) / s.Call.Rate)
	if s.Call.FailFast {
		return 0, s.Call.Refresh + send + rig.SchedSlack,
			"fail-fast refresh: next refresh tick (≤ --refresh) + one send interval + 50 ms"
	}
	return s.Call.RefreshTimeout - rig.SchedSlack, s.Call.Refresh + s.Call.RefreshTimeout + send + rig.SchedSlack,
		"gRPC refresh fails at its deadline: [refresh-timeout − 50 ms, refresh + refresh-timeout + one send interval + 50 ms]"
}

// articleSetup reports whether the run has the article's caller (40/s, refresh every 1 s).
func (s *cacheOnFailure) articleSetup() bool {
	return s.Call.Rate == 40 && s.Call.Refresh == time.Second
}

// Judge turns the recorded run into the result (pure).
func (s *cacheOnFailure) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, ok := s.measure(h)
	res.Series = m.series
	res.AddTable(report.SecondsTable("Per-second ok/fail (article 47.1: keep 40/0 every second; clear 40/0, 40/0, 1/39, then 0/40)",
		append([]report.Row{{Key: "keep", Label: "(a) keep old list on refresh failure"}, {Key: "clear", Label: "(b) clear list on refresh failure"}},
			append(realRows(s.Real.On, 'c'), userRows(s.Client)...)...),
		m.series, h.Events))
	if !ok {
		res.AddCheck(report.Yes("registry killed", "yes", "no").Invalid("no SIGKILL of the members was recorded"))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddCheck(s.checks(m)...)
	res.AddCheck(realKeepChecks(m.series, s.Real.On, s.Call.Rate, m.secs)...)
	s.conclude(res, m)
	concludeReal(res, m.series, s.Real.On, s.Client, []string{"keep", "clear"})
	return res
}

func (s *cacheOnFailure) metrics(mt report.Metrics, m cacheMeasure) {
	mt["outage_at_s"] = m.outage.At.Seconds()
	for _, name := range append(append([]string{"keep", "clear"}, realNames(s.Real.On)...), userNames(s.Client)...) {
		mt.AddSeriesMetrics(name, m.series[name])
	}
	mt["clear.first_fail_s"], mt["clear.first_fail_after_outage_s"] = -1, math.NaN()
	if m.clearFailed {
		mt["clear.first_fail_s"] = float64(int(m.firstFail.Scheduled / time.Second))
		mt["clear.first_fail_after_outage_s"] = m.firstFailDelay.Seconds()
		mt["clear.ok_after_first_fail"] = float64(m.okAfterFirst)
	}
}

func (s *cacheOnFailure) checks(m cacheMeasure) []report.Check {
	at := s.articleSetup()
	lo, hi, basis := s.firstFailBand()
	first := report.Band("clear: first failure after the outage", lo.Seconds(), hi.Seconds(), " s").Digits(3).From(basis).
		Says(report.SaysRange("1/39 in s2: within 1/40 s", 0, 0.025).OnlyIf(at)).
		Within(1/s.Call.Rate, "the article's table counts whole requests: one send interval (1/--rate)").
		Spread("the first failure lands at the clearing caller's next refresh tick, anywhere within one --refresh after the outage " +
			"(the refresh's phase, moved by --seed); the article's 1/39 in s2 is one of the outcomes the rule allows").
		Because("clientv3 waits for a ready connection and retries an unavailable cluster until the refresh deadline, " +
			"so a refresh against dead members fails only at --refresh-timeout; the article's client used the JSON gateway " +
			"and failed on the first refused connection (--refresh-fail-fast reproduces it)")
	cs := []report.Check{
		report.Exactly("keep: seconds not all ok", 0, "").From("rate ok / 0 fail in every second").
			Says(report.SaysValue("40/0 every second", 0).OnlyIf(at)).SameCount().JudgeText(float64(m.keepBad), m.keepWhy),
		report.Exactly("clear: seconds not all ok before the outage", 0, "").From("rate ok / 0 fail before the outage's second").
			Says(report.SaysValue("40/0 in s0–s1", 0).OnlyIf(at)).SameCount().JudgeText(float64(m.clearBad), m.clearWhy),
	}
	if !m.clearFailed {
		return append(cs, first.JudgeText(math.NaN(), "never failed"))
	}
	return append(cs, first.Judge(m.firstFailDelay.Seconds()),
		report.Exactly("clear: successes after its first failure", 0, "").From("an empty list serves nothing until a refresh succeeds").
			Says(report.SaysValue("0/40 from s3", 0)).SameCount().Judge(float64(m.okAfterFirst)))
}

func (s *cacheOnFailure) conclude(res *report.Result, m cacheMeasure) {
	res.Conclude(fmt.Sprintf("The registry died at %.2f s. keep served %d of %d requests (%s) from its cached list.",
		m.outage.At.Seconds(), m.keepOK, m.keepTotal, report.PctText(m.keepOK, m.keepTotal)))
	if !m.clearFailed {
		res.Conclude("clear never failed: its refreshes did not fail within the run, so clearing never happened.")
		return
	}
	verb := "and failed every request after that"
	if m.okAfterFirst > 0 {
		verb = fmt.Sprintf("but still had %d successes after that", m.okAfterFirst)
	}
	lo, hi, _ := s.firstFailBand()
	how := "its gRPC refresh waited out the refresh deadline"
	if s.Call.FailFast {
		how = "its fail-fast refresh failed on the first refused connection"
	}
	res.Conclude(fmt.Sprintf("clear failed first %.3f s after the outage (band %.3f–%.3f s: %s) %s, although every instance was alive: clearing the cache on a failed refresh turns a control-plane fault into a data-plane outage.",
		m.firstFailDelay.Seconds(), lo.Seconds(), hi.Seconds(), how, verb))
}
