package nacosarticle

import (
	"fmt"
	"math"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// snapshotMeasure is what a snapshot-at-start run measured.
type snapshotMeasure struct {
	series                map[string]report.Series
	outage, back          history.Event
	nosnapAt, snapAt      history.Event
	beforeN, beforeFail   int
	untilBackN, untilFail int // nosnap, from its start until the registry is back
	recovered             bool
	firstOK               history.Op
	firstOKDelay          time.Duration // from the heal
	failAfterOK           int
	snapN, snapFail       int
}

// measure fills the measurement; why is non-empty when the run cannot judge.
func (s *snapshotAtStart) measure(h *history.History) (m snapshotMeasure, why string) {
	m.series = report.PerSecond(h.Ops, append([]string{callerBefore, callerNoSnap, callerSnap}, s.realNames()...), report.Seconds(h.Timeline))
	var ok bool
	if m.outage, ok = h.Events.First(history.BlackholeLinks, history.Inject); !ok {
		return m, "no blackhole of the client links was recorded"
	}
	if m.back, ok = h.Events.First(history.BlackholeLinks, history.Heal); !ok {
		return m, "the client links were not healed"
	}
	if m.nosnapAt, ok = started(h.Events, callerNoSnap); !ok {
		return m, "the nosnap caller did not record its start"
	}
	if m.snapAt, ok = started(h.Events, callerSnap); !ok {
		return m, "the snap caller did not record its start"
	}
	if m.nosnapAt.At < m.outage.At || m.nosnapAt.At >= m.back.At {
		return m, fmt.Sprintf("the restart (%.2f s) did not fall inside the outage (%.2f–%.2f s)",
			m.nosnapAt.At.Seconds(), m.outage.At.Seconds(), m.back.At.Seconds())
	}
	m.beforeN, m.beforeFail = report.Count(h.Ops, callerBefore, 0, h.Timeline)
	m.untilBackN, m.untilFail = report.Count(h.Ops, callerNoSnap, 0, m.back.At)
	if m.untilBackN == 0 {
		return m, "nosnap sent nothing before the registry was back"
	}
	m.snapN, m.snapFail = report.Count(h.Ops, callerSnap, 0, h.Timeline)
	for _, op := range history.Filter(h.Ops, callerNoSnap) {
		switch {
		case !m.recovered && op.Outcome == history.OK:
			m.recovered, m.firstOK, m.firstOKDelay = true, op, op.Scheduled-m.back.At
		case m.recovered && op.Outcome != history.OK:
			m.failAfterOK++
		}
	}
	return m, ""
}

// started returns the CallerStart event of the named caller.
func started(es history.Events, name string) (history.Event, bool) {
	for _, e := range es.All(history.CallerStart, history.Once) {
		if len(e.Targets) == 1 && e.Targets[0] == name {
			return e, true
		}
	}
	return history.Event{}, false
}

// Judge turns a snapshot-at-start run into the result (pure).
func (s *snapshotAtStart) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, why := s.measure(h)
	res.Series = m.series
	res.AddTable(report.SecondsTable("Per-second ok/fail: the caller restarts while the registry is unreachable", append([]report.Row{
		{Key: callerBefore, Label: "before the restart (writes the snapshot)"},
		{Key: callerNoSnap, Label: "nosnap: restarts with an empty list"},
		{Key: callerSnap, Label: "snap: restarts from the disk snapshot"},
	}, s.realRows()...), m.series, h.Events))
	if why != "" {
		res.AddCheck(s.snapCheck().Invalid(why))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddCheck(s.checks(m)...)
	res.AddCheck(s.realChecks(h, m.back.At)...)
	s.conclude(res, m)
	s.concludeReal(res, h, m.series, m.back.At)
	return res
}

func (s *snapshotAtStart) metrics(mt report.Metrics, m snapshotMeasure) {
	for _, n := range append([]string{callerBefore, callerNoSnap, callerSnap}, s.realNames()...) {
		mt.AddSeriesMetrics(n, m.series[n])
	}
	mt["registry_back_s"], mt["restart_s"] = m.back.At.Seconds(), m.nosnapAt.At.Seconds()
	mt["nosnap.fail_until_back"] = float64(m.untilFail)
	mt["nosnap.first_ok_after_back_s"] = math.NaN()
	if m.recovered {
		mt["nosnap.first_ok_after_back_s"] = m.firstOKDelay.Seconds()
	}
}

func (s *snapshotAtStart) snapCheck() report.Expect {
	return report.Exactly("snap: failures", 0, "").From("the list loaded from the snapshot holds live instances; a failed refresh keeps it").
		Says(report.SaysValue("load the cache at start: the restarted client still has instances to call", 0)).SameCount()
}

// firstOKBand is where nosnap's first success must fall after the heal: at
// its next refresh (or at the heal, for a refresh the blackhole held), once
// answered, at the next send.
func (s *snapshotAtStart) firstOKBand() (lo, hi time.Duration) {
	send := time.Duration(float64(time.Second) / s.Call.Rate)
	return 0, s.Call.Refresh + s.Call.RefreshTimeout + send + rig.SchedSlack
}

func (s *snapshotAtStart) checks(m snapshotMeasure) []report.Check {
	lo, hi := s.firstOKBand()
	first := report.Band("nosnap: first success after the registry is back", lo.Seconds(), hi.Seconds(), " s").Digits(3).
		From("its next refresh after the heal (≤ --refresh), answered within --refresh-timeout, then the next send (+ 50 ms)").
		Says(report.Says("serves again once the registry answers"))
	cs := []report.Check{
		report.Exactly("before: failures", 0, "").From("a failed refresh keeps the list; every instance is alive").
			Says(report.Says("keeps serving from its list while the registry is unreachable")).
			JudgeText(float64(m.beforeFail), fmt.Sprintf("%d of %d", m.beforeFail, m.beforeN)),
		report.Band("nosnap: failed share from its start until the registry is back", 100, 100, " %").
			From("an empty list and no answer from the registry: nothing to call").
			Says(report.SaysValue("without the cache, a client restarted during the outage has no instance", 100)).SameShare().
			JudgeText(report.Pct(m.untilFail, m.untilBackN), fmt.Sprintf("%d of %d", m.untilFail, m.untilBackN)),
	}
	if !m.recovered {
		cs = append(cs, first.JudgeText(math.NaN(), "never succeeded"))
	} else {
		cs = append(cs, first.Judge(m.firstOKDelay.Seconds()),
			report.Exactly("nosnap: failures after its first success", 0, "").From("the refreshed list holds every live instance").
				Says(report.Says("recovers by itself")).Judge(float64(m.failAfterOK)))
	}
	return append(cs, s.snapCheck().JudgeText(float64(m.snapFail), fmt.Sprintf("%d of %d", m.snapFail, m.snapN)))
}

func (s *snapshotAtStart) conclude(res *report.Result, m snapshotMeasure) {
	res.Conclude(fmt.Sprintf("The caller restarted at %.2f s while the registry was unreachable (%.2f–%.2f s).",
		m.nosnapAt.At.Seconds(), m.outage.At.Seconds(), m.back.At.Seconds()))
	res.Conclude(fmt.Sprintf("Without a snapshot it failed %d of %d requests until the registry came back; with the list its predecessor wrote to disk it failed %d of %d.",
		m.untilFail, m.untilBackN, m.snapFail, m.snapN))
	if m.recovered {
		res.Conclude(fmt.Sprintf("nosnap served again %.3f s after the heal, at its first successful refresh.", m.firstOKDelay.Seconds()))
	}
}
