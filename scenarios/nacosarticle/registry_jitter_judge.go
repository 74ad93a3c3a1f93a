package nacosarticle

import (
	"fmt"
	"math"
	"sort"
	"time"

	"sdchaos/caller"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// jitterMeasure is what a registry-jitter run measured.
type jitterMeasure struct {
	series     map[string]report.Series
	start, end history.Event
	// packets says the jitter was a packet drop (--net private), not the
	// proxies' blackhole.
	packets bool
	// nDuring counts each caller's requests scheduled during the jitter;
	// failDuring and failAfter its failed requests during and after it.
	nDuring, failDuring, failAfter map[string]int
	naiveFailed                    bool
	naiveFirst                     time.Duration // from the jitter's start
	// naiveN and naiveFail count naive's requests (and failures) from the
	// latest time its first failure may come until the heal.
	naiveN, naiveFail int
	// emptySeen counts keep's successful refreshes answered after the heal
	// that listed no instance; emptyFor is how long its list was empty.
	emptySeen int
	emptyFor  time.Duration
	// reregistered counts the instances that registered more than once, of
	// instances (0 when the plan did not record them).
	reregistered, instances int
	// lastBad and lastWhy say, per caller, whether the last second was not all ok.
	lastBad map[string]int
	lastWhy map[string]string
}

func jitterNames() []string {
	names := make([]string, len(jitterCallers))
	for i, jc := range jitterCallers {
		names[i] = jc.name
	}
	return names
}

// measure fills the measurement; false when the jitter was not both
// injected and healed (the run cannot judge).
func (s *registryJitter) measure(h *history.History) (jitterMeasure, bool) {
	secs := report.Seconds(h.Timeline)
	m := jitterMeasure{series: report.PerSecond(h.Ops, append(jitterNames(), s.realNames()...), secs), nDuring: map[string]int{},
		failDuring: map[string]int{}, failAfter: map[string]int{}, lastBad: map[string]int{}, lastWhy: map[string]string{}}
	var ok bool
	if m.start, m.end, ok = jitterWindow(h.Events); !ok {
		return m, false
	}
	m.packets = m.start.Kind == history.PacketDropClients
	due := caller.PerSecondDue(s.Call.Rate, secs)
	for _, n := range jitterNames() {
		m.nDuring[n], m.failDuring[n] = report.Count(h.Ops, n, m.start.At, m.end.At)
		_, m.failAfter[n] = report.Count(h.Ops, n, m.end.At, h.Timeline)
	}
	for _, n := range s.realNames() {
		// The resolver's list changes as soon as the healed watch delivers:
		// a call belongs to the side of the heal on which it started.
		m.nDuring[n], m.failDuring[n] = report.CountStarted(h.Ops, n, m.start.At, m.end.At)
		_, m.failAfter[n] = report.CountStarted(h.Ops, n, m.end.At, h.Timeline)
	}
	for _, n := range append(jitterNames(), s.realNames()...) {
		m.lastBad[n], m.lastWhy[n] = report.BadSeconds(m.series[n], due, secs-1, secs)
	}
	if first, ok := report.FirstFailure(h.Ops, "naive"); ok {
		m.naiveFailed, m.naiveFirst = true, first.Scheduled-m.start.At
	}
	_, hi := s.naiveFirstBand()
	m.naiveN, m.naiveFail = report.Count(h.Ops, "naive", m.start.At+hi, m.end.At)
	m.emptySeen, m.emptyFor = emptyAfter(h.Ops, "keep", m.end.At, h.Timeline)
	for _, op := range history.Filter(h.Ops, opRegistrations) {
		m.instances++
		if op.Count > 1 {
			m.reregistered++
		}
	}
	return m, true
}

// jitterKinds are the faults that make the jitter: the proxies' blackhole
// (loopback), or the client packets dropped (--net private).
var jitterKinds = []history.EventKind{history.BlackholeLinks, history.PacketDropClients}

// jitterWindow returns the jitter's inject and heal events; false when no
// jitter fault was both injected and healed.
func jitterWindow(es history.Events) (start, end history.Event, ok bool) {
	for _, k := range jitterKinds {
		s, ok1 := es.First(k, history.Inject)
		e, ok2 := es.First(k, history.Heal)
		if ok1 && ok2 {
			return s, e, true
		}
	}
	return history.Event{}, history.Event{}, false
}

// emptyAfter looks at the caller's successful refreshes answered at or
// after t (a refresh sent during the blackhole is held and answered after
// the heal, so the answer time is what counts): how many listed no
// instance, and how long, until end, its list stayed empty because of them.
func emptyAfter(ops []history.Op, name string, t, end time.Duration) (int, time.Duration) {
	refreshes := history.Filter(ops, name+caller.RefreshSuffix)
	sort.SliceStable(refreshes, func(i, j int) bool { return refreshes[i].End < refreshes[j].End })
	n, total, since := 0, time.Duration(0), time.Duration(-1)
	for _, op := range refreshes {
		if op.End < t || op.Outcome != history.OK {
			continue
		}
		empty := op.Count == 0
		if empty {
			n++
		}
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
	return n, total
}

// naiveFirstBand is where naive's first failure falls after the jitter
// starts: its next refresh (within --refresh) fails at --refresh-timeout,
// then the next send finds the list empty. The failure is dated by the
// send's schedule, and a send may start up to report.LateSend after it in
// a valid run (the schedule gate).
func (s *registryJitter) naiveFirstBand() (lo, hi time.Duration) {
	send := time.Duration(float64(time.Second) / s.Call.Rate)
	return s.Call.RefreshTimeout - report.LateSend, s.Call.Refresh + s.Call.RefreshTimeout + send + rig.SchedSlack
}

// Judge turns a registry-jitter run into the result (pure).
func (s *registryJitter) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, ok := s.measure(h)
	res.Series = m.series
	rows := make([]report.Row, len(jitterCallers))
	for i, jc := range jitterCallers {
		rows[i] = report.Row{Key: jc.name, Label: jc.label}
	}
	res.AddTable(report.SecondsTable("Per-second ok/fail while every client loses the registry (Nacos incident: the naive clients failed everything)",
		append(rows, s.realRows()...), m.series, h.Events))
	if !ok {
		res.AddCheck(s.naiveShare().Invalid("no jitter (blackhole or packet drop on the client links) was both injected and healed"))
		return res
	}
	s.metrics(res.Metrics, m)
	if s.lossy() {
		res.AddTable(s.lossTable(m))
	} else {
		res.AddCheck(s.naiveChecks(m)...)
	}
	res.AddCheck(s.remedyChecks(m)...)
	res.AddCheck(s.afterChecks(m)...)
	res.AddCheck(s.realChecks(m)...)
	s.conclude(res, m)
	s.concludeLoss(res, m)
	s.concludeReal(res, m)
	judgeJitterKV(res, h)
	return res
}

func (s *registryJitter) metrics(mt report.Metrics, m jitterMeasure) {
	mt["jitter_start_s"], mt["jitter_end_s"] = m.start.At.Seconds(), m.end.At.Seconds()
	mt["instances_reregistered"] = float64(m.reregistered)
	mt["keep.empty_refreshes_after"] = float64(m.emptySeen)
	mt["keep.empty_list_s"] = m.emptyFor.Seconds()
	mt["naive.first_fail_after_start_s"] = math.NaN()
	if m.naiveFailed {
		mt["naive.first_fail_after_start_s"] = m.naiveFirst.Seconds()
	}
	for _, n := range append(jitterNames(), s.realNames()...) {
		mt.AddSeriesMetrics(n, m.series[n])
		mt[n+".fail_during"], mt[n+".fail_after"] = float64(m.failDuring[n]), float64(m.failAfter[n])
		mt[n+".fail_share_during_pct"] = report.Pct(m.failDuring[n], m.nDuring[n])
	}
}

func (s *registryJitter) naiveShare() report.Expect {
	return report.Band("naive: failed share of the jitter after its first failed refresh", 100, 100, " %").
		From("a failed refresh clears the list; every refresh fails until the heal").
		Says(report.SaysValue("the whole system failed: No instances available (503)", 100)).SameShare()
}

func (s *registryJitter) naiveChecks(m jitterMeasure) []report.Check {
	lo, hi := s.naiveFirstBand()
	first := report.Band("naive: first failure after the jitter starts", lo.Seconds(), hi.Seconds(), " s").Digits(3).
		From("its next refresh (≤ --refresh) fails at --refresh-timeout (a blackholed call waits out its deadline), then the next send (− 100 ms for a send started late, + 50 ms)").
		Says(report.Says("clients dropped their instance lists"))
	share := s.naiveShare()
	cs := []report.Check{first.JudgeText(math.NaN(), "never failed")}
	if m.naiveFailed {
		cs[0] = first.Judge(m.naiveFirst.Seconds())
	}
	if m.naiveN == 0 {
		return append(cs, share.Invalid(fmt.Sprintf("the jitter (%s) ends before naive's first failure must have come (%s after its start)", s.Jitter, hi)))
	}
	return append(cs, share.JudgeText(report.Pct(m.naiveFail, m.naiveN), fmt.Sprintf("%d of %d", m.naiveFail, m.naiveN)))
}

// remedies are the article's remedies, with their claims.
var remedies = map[string]string{
	"keep":           "keep the cached list when the registry does not answer",
	"stale_fallback": "a balancer that falls back to the last non-empty list keeps serving",
	"empty_protect":  "empty protection keeps the old list",
}

func (s *registryJitter) remedyChecks(m jitterMeasure) []report.Check {
	var cs []report.Check
	for _, n := range []string{"keep", "stale_fallback", "empty_protect"} {
		if n == "keep" && s.unpredicted(m) {
			continue // a successful refresh may list fewer instances, or none
		}
		cs = append(cs, report.Exactly(n+": failures during the jitter", 0, "").
			From(s.remedyBasis(n)).
			Says(report.SaysValue(remedies[n], 0)).SameCount().Judge(float64(m.failDuring[n])))
	}
	for _, n := range []string{"stale_fallback", "empty_protect"} {
		cs = append(cs, report.Exactly(n+": failures after the jitter", 0, "").
			From("an empty answer never empties the list in use").
			Says(report.SaysValue(remedies[n], 0)).SameCount().Judge(float64(m.failAfter[n])))
	}
	if s.unpredicted(m) {
		return cs
	}
	return append(cs, s.keepAfter(m))
}

// remedyBasis is why the policy n fails nothing during the jitter.
func (s *registryJitter) remedyBasis(n string) string {
	switch {
	case !s.lossy():
		return "a failed refresh keeps the list; every instance is alive"
	case n == "keep":
		return "a failed refresh keeps the list, one that gets through lists every instance (no lease expired); the calls to the instances do not cross the lossy links"
	}
	return "a failed refresh keeps the list, one that gets through lists live instances only and an empty one never empties the list in use; the calls to the instances do not cross the lossy links"
}

// keepAfter judges keep's failures after the jitter against the time its
// own refreshes saw the registry empty.
func (s *registryJitter) keepAfter(m jitterMeasure) report.Check {
	if m.emptySeen == 0 {
		return report.Exactly("keep: failures after the jitter (the registry never answered empty)", 0, "").
			From("its refreshes never listed no instance after the heal").
			Says(report.Says("recovers by itself")).Judge(float64(m.failAfter["keep"]))
	}
	want := s.Call.Rate * m.emptyFor.Seconds()
	slack := 2 + 2*s.Call.Rate*report.LateSend.Seconds()
	return report.Band("keep: failures after the jitter = rate × time its list was empty", math.Max(1, want-slack), want+slack, "").
		From(fmt.Sprintf("%g/s × %.3f s empty (from its refreshes' answers) ± (2 + 2 × rate × 100 ms: a send starts up to 100 ms late)", s.Call.Rate, m.emptyFor.Seconds())).
		Says(report.Says("a successful empty answer replaces the list: No instances available")).Judge(float64(m.failAfter["keep"]))
}

// reregisterBand returns how many instances must register again, and
// false when the parameters leave it to each instance's renewal phase.
// A partial loss lets some renewals through, so only "none" is predicted
// then; with packets, the first renewal after the heal may wait for a new
// connection (reconnectAllowance).
func (s *registryJitter) reregisterBand(packets bool) (n int, basis string, ok bool) {
	reconnect, why := time.Duration(0), ""
	if packets {
		reconnect, why = reconnectAllowance, " + "+reconnectAllowance.String()+" to reconnect"
	}
	switch {
	case !s.lossy() && s.Jitter > s.Svc.TTL+time.Second:
		return s.Svc.Instances, fmt.Sprintf("--jitter %s > --ttl %s + 1 s (leader's 500 ms expiry check): every lease expires", s.Jitter, s.Svc.TTL), true
	case s.Jitter+s.Svc.Renew+reconnect+rig.SchedSlack < s.Svc.TTL:
		return 0, fmt.Sprintf("--jitter %s + --renew %s%s + 50 ms < --ttl %s: no lease expires", s.Jitter, s.Svc.Renew, why, s.Svc.TTL), true
	}
	return 0, "", false
}

func (s *registryJitter) afterChecks(m jitterMeasure) []report.Check {
	var cs []report.Check
	if n, basis, ok := s.reregisterBand(m.packets); ok {
		e := report.Exactly("instances that registered again", float64(n), "").From(basis).
			Says(report.Says("pods re-registered when the registry came back"))
		if m.instances == 0 {
			cs = append(cs, e.Invalid("the instances' registrations were not recorded"))
		} else {
			cs = append(cs, e.JudgeText(float64(m.reregistered), fmt.Sprintf("%d of %d", m.reregistered, m.instances)))
		}
	}
	for _, n := range jitterNames() {
		cs = append(cs, report.Exactly(n+": seconds not all ok in the last second", 0, "").
			From("every refresh succeeds again after the heal; the last second is all ok").
			Says(report.Says("recovers by itself")).JudgeText(float64(m.lastBad[n]), m.lastWhy[n]))
	}
	return cs
}

func (s *registryJitter) conclude(res *report.Result, m jitterMeasure) {
	res.Conclude(fmt.Sprintf("Every client lost %s for %.1f s (s%d–s%d) while all instances were alive.",
		s.lostWhat(m), (m.end.At - m.start.At).Seconds(), m.start.Second(), m.end.Second()))
	res.Conclude(fmt.Sprintf("naive failed %d requests during the jitter (%d after it); keep %d, stale_fallback %d, empty_protect %d during it.",
		m.failDuring["naive"], m.failAfter["naive"], m.failDuring["keep"], m.failDuring["stale_fallback"], m.failDuring["empty_protect"]))
	if _, _, ok := s.reregisterBand(m.packets); !ok {
		res.Conclude(fmt.Sprintf("With --jitter %s, --ttl %s and --renew %s, whether a lease expires depends on the instance's renewal phase: %d of %d registered again (not judged).",
			s.Jitter, s.Svc.TTL, s.Svc.Renew, m.reregistered, m.instances))
	}
	if m.reregistered > 0 || m.emptySeen > 0 {
		res.Conclude(fmt.Sprintf("%d instance(s) had to register again (their leases expired inside etcd during the jitter); keep's refreshes saw the registry empty %d time(s) afterwards (%.2f s) and keep failed %d requests, stale_fallback %d and empty_protect %d.",
			m.reregistered, m.emptySeen, m.emptyFor.Seconds(), m.failAfter["keep"], m.failAfter["stale_fallback"], m.failAfter["empty_protect"]))
		res.Conclude("Keeping the cache on errors is not enough once the registry can answer \"empty\": fall back to the last non-empty list, or ignore empty answers.")
		return
	}
	if s.lossy() {
		res.Conclude(fmt.Sprintf("No lease expired (ttl %s), so the registry never answered empty: keeping the list on a failed refresh was enough; clearing it turned a lossy registry into %s failed requests.",
			s.Svc.TTL, report.PctText(m.failDuring["naive"], m.nDuring["naive"])))
		return
	}
	res.Conclude(fmt.Sprintf("No lease expired (ttl %s), so the registry never answered empty: keeping the list on a failed refresh was enough; clearing it turned a registry blip into a full outage.", s.Svc.TTL))
}
