package nacosincident

import (
	"fmt"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// noInstances is Spring Cloud LoadBalancer's error for an empty list: the
// article's "No instances available" (a 503 behind a gateway); the caller
// records it as a call failed for want of an instance
// (history.ErrNoInstance).
const noInstances = "No instances available"

// springFails is the check of whether Spring failed with "No instances
// available" while the registry was empty for loss.
func (s *nacosIncident) springFails(loss time.Duration) report.Expect {
	lo, hi := ruleBand(loss, pushDelay, springFirstBy())
	return yesNo(`spring: failed with "No instances available" while the registry was empty`, "failed", "never failed", lo, hi).
		From(fmt.Sprintf("LoadBalancer serves its cached list until the entry expires, %s after it was written (before the push of the empty list, "+
			"%s after the deregistration + %s); then an empty cached list is a miss and every call reads its Nacos client's empty list: yes when the "+
			"registry stays empty longer than %s, never before the push; the registry was empty %.2f s", lbCacheTTL, pushDelay, deliverSlack, springFirstBy(), loss.Seconds())).
		Says(report.SaysYes("the load balancer then had no instances: No instances available (503)")).
		Spread(fmt.Sprintf("an empty registry for between %s and %s makes Spring fail or not by where LoadBalancer's cached entry was written "+
			"against the %s expiry (the run's phase): the article's failure is one of the outcomes", pushDelay, springFirstBy(), lbCacheTTL))
}

// emptyChecks judge the empty registry: the server's answer, the
// unprotected clients' failures, Spring's "No instances available" after
// LoadBalancer's cache expires, and the fixes.
func (s *nacosIncident) emptyChecks(h *history.History, m incidentMeasure) []report.Check {
	lo, hi := ruleBand(m.loss, 0, pushDelay+ruleSlack)
	cs := []report.Check{yesNo("server: listed no instance while the instances were deregistered", "listed none", "listed some", lo, hi).
		From(fmt.Sprintf("a deregistration removes the instance at once; the answered list follows within the %s push delay (+ %s)", pushDelay, ruleSlack)).
		JudgeBool(m.emptyAt >= 0)}
	for _, c := range s.callers() {
		switch c.guard {
		case unguarded:
			cs = append(cs, s.unguardedEmpty(h, c.name, m)...)
		case lbCache:
			cs = append(cs, s.springEmpty(h, m)...)
		default:
			n := callsOf(h.Ops, c.name, m.start.At, m.end.At)
			cs = append(cs, report.Exactly(c.name+": failures while the registry was empty", 0, "").From(guardBasis(c.guard)).
				Says(report.SaysValue(remedyClaim(c.guard), 0)).SameCount().JudgeText(float64(n[1]), fmt.Sprintf("%d of %d", n[1], n[0])))
		}
		cs = append(cs, s.afterRefill(h, c.name, m))
	}
	return cs
}

// guardBasis says why a guarded caller fails nothing on an empty list.
func guardBasis(g guard) string {
	switch g {
	case fallback:
		return "an empty list from the discovery client is replaced by the last non-empty one"
	case protection:
		return "push-empty protection ignores the empty push (ServiceInfoHolder); no reconnect, so no read bypasses it"
	}
	return "nacos-sdk-go ignores an empty list (UpdateCacheWhenEmpty false): its cache keeps the instances"
}

// unguardedEmpty judges a client that takes the empty list: it fails every
// call from the push of the empty list until the push of the
// re-registration.
func (s *nacosIncident) unguardedEmpty(h *history.History, name string, m incidentMeasure) []report.Check {
	from, to := m.start.At+emptiedAt(), m.end.At+pushDelay
	n := callsOf(h.Ops, name, from, to)
	if n[0] == 0 {
		return nil // the registry was empty for less than the push takes
	}
	return []report.Check{report.Band(name+": failed share while its list was empty", 100, 100, " %").
		From(fmt.Sprintf("the empty list is pushed %s after the deregistration (+ %s to arrive) and replaces the client's; the refilled one comes "+
			"no sooner than %s after the re-registration: every call due in [fault + %s, heal + %s) fails", pushDelay, deliverSlack, pushDelay, emptiedAt(), pushDelay)).
		Says(report.SaysValue("the clients dropped their instance lists: every call failed", 100)).SameShare().
		JudgeText(report.Pct(n[1], n[0]), fmt.Sprintf("%d of %d", n[1], n[0]))}
}

// springEmpty judges Spring: whether and when it failed with "No instances
// available", and that it failed every call from then until the refill.
func (s *nacosIncident) springEmpty(h *history.History, m incidentMeasure) []report.Check {
	first, ok := firstFailed(h.Ops, "spring", m.start.At, history.ErrNoInstance)
	cs := []report.Check{s.springFails(m.loss).JudgeBool(ok)}
	if !ok {
		return cs
	}
	at := first.Scheduled - m.start.At
	cs = append(cs, report.Band(`spring: first "No instances available", after the registry emptied`, (pushDelay-lowSlack).Seconds(), springFirstBy().Seconds(), " s").Digits(2).
		From(fmt.Sprintf("not before the push of the empty list (%s − %s); at the latest when LoadBalancer's entry written before it expires (%s + %s + %s + %s)",
			pushDelay, lowSlack, pushDelay, deliverSlack, lbCacheTTL, ruleSlack)).
		Says(report.Says("No instances available")).Judge(at.Seconds()))
	if n := callsOf(h.Ops, "spring", first.Scheduled, m.end.At+pushDelay); n[0] > 0 {
		cs = append(cs, report.Band(`spring: failed share from its first "No instances available" until the re-registration`, 100, 100, " %").
			From("an empty cached list is a miss (CachingServiceInstanceListSupplier): every call reads the Nacos client's empty list until the push after the re-registration").
			Says(report.SaysValue("the whole system failed", 100)).SameShare().JudgeText(report.Pct(n[1], n[0]), fmt.Sprintf("%d of %d", n[1], n[0])))
	}
	return cs
}

// afterRefill judges a caller's failures once every client holds the
// re-registered instances again.
func (s *nacosIncident) afterRefill(h *history.History, name string, m incidentMeasure) report.Check {
	n := callsOf(h.Ops, name, m.end.At+refilledBy(), h.Timeline)
	return report.Exactly(name+": failures after the re-registration", 0, "").
		From(fmt.Sprintf("the push of the re-registered instances comes %s after it (+ %s to arrive); a Spring call reads the refilled list at once (an empty entry is a miss)",
			pushDelay, deliverSlack)).Says(report.Says("recovers by itself")).JudgeText(float64(n[1]), fmt.Sprintf("%d of %d", n[1], n[0]))
}

// firstFailed returns the first failed op of caller due at or after from
// whose error is of class c.
func firstFailed(ops []history.Op, caller string, from time.Duration, c history.ErrClass) (history.Op, bool) {
	var first history.Op
	found := false
	for _, op := range history.Filter(ops, caller) {
		if op.Scheduled >= from && op.Outcome != history.OK && op.ErrClass == c && (!found || op.Scheduled < first.Scheduled) {
			first, found = op, true
		}
	}
	return first, found
}
