package article47

import (
	"fmt"
	"math"
	"time"

	"sdchaos/caller"
	"sdchaos/history"
	"sdchaos/report"
)

// ejectMeasure is what a passive-ejection run measured.
type ejectMeasure struct {
	series        map[string]report.Series
	outage, crash history.Event
	// early counts each caller's failures among the calls that ended
	// before the crash (the crash cannot explain them).
	early map[string]int
	// firstFull and lastFull bound the whole seconds after the crash;
	// minFail and maxFail are none's fewest and most failures in them.
	firstFull, lastFull int
	minFail, maxFail    int
	perSecLo, perSecHi  int
	// after counts none's requests that did not end before the crash (a
	// send due before it may start after it: up to report.LateSend late in
	// a valid run); noneFail and ejectFail are the callers' failures in
	// total.
	after               int
	noneFail, ejectFail int
	noneOK              int
	// realFail counts each real client's failures from the crash on.
	realFail map[string]int
}

func (s *passiveEjection) measure(h *history.History) (ejectMeasure, bool) {
	secs := report.Seconds(h.Timeline)
	m := ejectMeasure{series: report.PerSecond(h.Ops, append(append([]string{"none", "eject"}, realNames(s.Real.On)...), userNames(s.Client)...), secs),
		early: map[string]int{}, realFail: map[string]int{}}
	var ok1, ok2 bool
	m.outage, ok1 = h.Events.First(history.KillMembers, history.Inject)
	m.crash, ok2 = h.Events.First(history.CrashInstance, history.Inject)
	if !ok1 || !ok2 {
		return m, false
	}
	for _, name := range append([]string{"none", "eject"}, realNames(s.Real.On)...) {
		_, m.early[name] = report.CountEnded(h.Ops, name, 0, m.crash.At)
	}
	for _, name := range realNames(s.Real.On) {
		_, m.realFail[name] = report.CountEnded(h.Ops, name, m.crash.At, math.MaxInt64)
	}
	n := float64(s.Svc.Instances)
	due := caller.PerSecondDue(s.Call.Rate, secs)
	m.firstFull, m.lastFull = int(math.Ceil(m.crash.At.Seconds())), int(h.Timeline/time.Second)-1
	m.minFail, m.perSecLo = math.MaxInt, math.MaxInt
	swap := pickSwap(s.Call.Rate, s.Svc.Instances)
	for i := m.firstFull; i <= m.lastFull && i < secs; i++ {
		f := m.series["none"].Fail[i]
		m.minFail, m.maxFail = min(m.minFail, f), max(m.maxFail, f)
		m.perSecLo = min(m.perSecLo, int(math.Floor(float64(due[i])/n))-2*swap)
		m.perSecHi = max(m.perSecHi, int(math.Ceil(float64(due[i])/n))+2*swap)
	}
	m.after, _ = report.CountEnded(h.Ops, "none", m.crash.At, math.MaxInt64)
	m.noneOK, m.noneFail = m.series["none"].Total()
	_, m.ejectFail = m.series["eject"].Total()
	return m, true
}

// articleSetup reports whether the run has the article's callers and crash (40/s, 3 instances, crash at 4 s of 10).
func (s *passiveEjection) articleSetup(h *history.History) bool {
	return s.Call.Rate == 40 && s.Svc.Instances == 3 && s.CrashAt == 4*time.Second && h.Timeline == 10*time.Second
}

// Judge turns the recorded run into the result (pure).
func (s *passiveEjection) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, ok := s.measure(h)
	res.Series = m.series
	res.AddTable(report.SecondsTable("Per-second ok/fail (article 47.2: none 27/13, 26/14 … 80/400 failed; eject 39/1 then 40/0, 1/400)",
		append([]report.Row{{Key: "none", Label: "(a) no passive ejection"}, {Key: "eject", Label: fmt.Sprintf("(b) eject locally for %s after a failed call", s.Eject)}},
			append(realRows(s.Real.On, 'c'), userRows(s.Client)...)...),
		m.series, h.Events))
	if !ok {
		res.AddCheck(report.Yes("registry down, then an instance crashed", "yes", "no").Invalid("the outage or the crash was not recorded"))
		return res
	}
	mt := res.Metrics
	mt["outage_at_s"], mt["crash_at_s"] = m.outage.At.Seconds(), m.crash.At.Seconds()
	for _, name := range append(append([]string{"none", "eject"}, realNames(s.Real.On)...), userNames(s.Client)...) {
		mt.AddSeriesMetrics(name, m.series[name])
	}
	mt["none.fail_theory"] = float64(m.after) / float64(s.Svc.Instances)
	res.AddCheck(s.checks(m, s.articleSetup(h))...)
	res.AddCheck(s.realChecks(m)...)
	s.conclude(res, m)
	concludeReal(res, m.series, s.Real.On, s.Client, []string{"eject", "none"})
	return res
}

// pickSwap is how many picks of one instance can cross a second's
// boundary: each call picks its instance (round-robin, caller.List.Pick)
// when its own goroutine runs, not when it is due, and a send starts up to
// report.LateSend late in a valid run (the schedule gate), so the ⌈rate ×
// LateSend⌉ sends due within it can pick in either order: at most ⌈that /
// instances⌉ picks of the dead one.
func pickSwap(rate float64, instances int) int {
	within := int(math.Ceil(rate * report.LateSend.Seconds()))
	return (within + instances - 1) / instances
}

func (s *passiveEjection) checks(m ejectMeasure, at bool) []report.Check {
	n := s.Svc.Instances
	var cs []report.Check
	for _, name := range []string{"none", "eject"} {
		cs = append(cs, report.Exactly(name+": failures before the crash", 0, "").From("every instance alive until then (calls that ended before the crash)").
			Says(report.SaysValue("40/0 in s0–s3", 0).OnlyIf(at)).SameCount().Judge(float64(m.early[name])))
	}
	perSec := fmt.Sprintf("rate/%d per second, rounded down or up, ± %d at each end of the second (a call picks its instance when it starts, up to %s late: calls due that close can swap instances)",
		n, pickSwap(s.Call.Rate, n), report.LateSend)
	fewest := report.Band("none: fewest failures in a whole second after the crash", float64(m.perSecLo), float64(m.perSecHi), "").
		From(perSec).Says(report.SaysRange("13–14 of 40", 13, 14).OnlyIf(at)).SameCount()
	most := report.Band("none: most failures in a whole second after the crash", float64(m.perSecLo), float64(m.perSecHi), "").
		From(perSec).Says(report.SaysRange("13–14 of 40", 13, 14).OnlyIf(at)).SameCount()
	if m.maxFail == 0 && m.minFail == math.MaxInt {
		cs = append(cs, fewest.Invalid("no whole second after the crash"), most.Invalid("no whole second after the crash"))
	} else {
		cs = append(cs, fewest.Judge(float64(m.minFail)), most.Judge(float64(m.maxFail)))
	}
	third := float64(m.after) / float64(n)
	cs = append(cs, report.Band("none: failed requests in total", math.Floor(third)-2, math.Ceil(third)+2, "").
		From(fmt.Sprintf("1/%d of the %d requests after the crash (±2 at the crash's instant)", n, m.after)).
		Says(report.SaysValue("80 of 400", 80).OnlyIf(at)).
		Within(2, "the crash's instant within a send interval moves up to 2 calls either side of 1/n of the calls after it").Judge(float64(m.noneFail)))
	periods := math.Ceil((time.Duration(m.lastFull+1)*time.Second - m.crash.At).Seconds() / s.Eject.Seconds())
	cs = append(cs, report.Band("eject: failed requests in total", 1, 2*periods, "").
		From("the call that ejects fails; at most 2 per ejection period after the crash").
		Says(report.SaysValue("1 of 400", 1).OnlyIf(at)).SameCount().
		Spread("each ejection period after the crash may cost one more failed call (the instance is tried again when its ejection ends)").Judge(float64(m.ejectFail)))
	return cs
}

func (s *passiveEjection) conclude(res *report.Result, m ejectMeasure) {
	res.Conclude(fmt.Sprintf("The registry was down from %.2f s, so nobody removed the instance that crashed at %.2f s.",
		m.outage.At.Seconds(), m.crash.At.Seconds()))
	res.Conclude(fmt.Sprintf("Without passive ejection the caller failed %d of %d requests (theory %.1f: 1/%d of the %d requests after the crash); with local ejection for %s it failed %d.",
		m.noneFail, m.noneOK+m.noneFail, float64(m.after)/float64(s.Svc.Instances), s.Svc.Instances, m.after, s.Eject, m.ejectFail))
	if m.ejectFail < m.noneFail {
		res.Conclude(fmt.Sprintf("A caller that corrects its own cache after a failed call loses %.0f× fewer requests while the registry cannot.",
			float64(m.noneFail)/math.Max(float64(m.ejectFail), 1)))
	} else {
		res.Conclude("Passive ejection did not reduce failures in this run.")
	}
}

// realFailsAfterCrash bounds a real client's failures after the crash:
// calls in flight on the closed connection, or picked before the transport
// notices; then no call goes to the dead instance.
const realFailsAfterCrash = 3

// realChecks: a real client fails nothing before the crash and at most
// realFailsAfterCrash after it (as eject).
func (s *passiveEjection) realChecks(m ejectMeasure) []report.Check {
	var cs []report.Check
	basis := "gRPC sees the crashed instance's connection close; round_robin picks only READY subchannels, " +
		"pick_first moves to the next address when its connection is refused: only calls in flight or picked before " +
		"the transport notices fail: as eject"
	for _, name := range realNames(s.Real.On) {
		before := report.Exactly(name+": failures before the crash", 0, "").From("every instance alive until then (calls that ended before the crash)").
			Says(report.Says("— (the article ran no real client)"))
		after := report.Band(name+": failures after the crash", 0, realFailsAfterCrash, "").From(basis).
			Says(report.Says("— (the article ran no real client)"))
		if ok, fail := m.series[name].Total(); ok+fail == 0 {
			cs = append(cs, before.Invalid("the real client recorded no call"), after.Invalid("the real client recorded no call"))
			continue
		}
		cs = append(cs, before.Judge(float64(m.early[name])), after.Judge(float64(m.realFail[name])))
	}
	return cs
}
