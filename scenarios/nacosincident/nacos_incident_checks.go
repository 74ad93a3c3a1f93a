package nacosincident

import (
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/report"
)

// articleLoss is the article's figure: 18 s of packet loss.
const articleLoss = 18 * time.Second

// yesNo is a yes/no check whose band the rule leaves at lo–hi (0–1: either).
func yesNo(name, yes, no string, lo, hi float64) report.Expect {
	e := report.Yes(name, yes, no)
	e.Lo, e.Hi = lo, hi
	return e
}

// ruleBand is the yes/no band of a rule that says no below noBelow and yes
// above yesAbove: 0, 1, or 0–1 (either) for a loss between.
func ruleBand(loss, noBelow, yesAbove time.Duration) (lo, hi float64) {
	switch {
	case loss < noBelow:
		return 0, 0
	case loss > yesAbove:
		return 1, 1
	}
	return 0, 1
}

// ejectCause is why Nacos 3 over gRPC removes nothing after the article's
// 18 s.
func ejectCause() string {
	return fmt.Sprintf("an ephemeral instance registered over gRPC lives as long as its connection (ConnectionBasedClientManager), and a silent "+
		"connection is ejected only after %s without a request (RuntimeConnectionEjector.KEEP_ALIVE_TIME) and an unanswered %s probe "+
		"(NacosRuntimeConnectionEjector); an instance's client sends a health check every %s, so no loss shorter than %s removes an "+
		"instance: 18 s is shorter, and a blackholed client receives nothing to drop its list for (variant loss40s shows the removal)",
		keepAliveTime, ejectProbe, clientKeepAlive, noRemovalBelow()+lowSlack)
}

// serverEjected is the check of whether the server ejected a connection
// during a loss of loss.
func (s *nacosIncident) serverEjected(loss time.Duration) report.Expect {
	lo, hi := ruleBand(loss, noEjectBelow(), ejectBy())
	return yesNo("server: ejected a silent client connection during the loss", "ejected", "ejected none", lo, hi).
		From(fmt.Sprintf("none below %s (a caller's connection silent ≤ %s when the loss began: its client looks every %s and skips a health check "+
			"right after a request; probed at %s silent, ejected %s later, − %s); some above %s (the first connection %s silent is probed at the "+
			"ejector's next run, within %s, ejected %s later, + %s); the loss was %.2f s",
			noEjectBelow(), 2*clientKeepAlive, clientKeepAlive, keepAliveTime, ejectProbe, lowSlack, ejectBy(), keepAliveTime, ejectEvery,
			ejectProbe, ruleSlack, loss.Seconds()))
}

// serverEmptied is the check of whether the server removed every instance
// during a loss of loss: the article's claim.
func (s *nacosIncident) serverEmptied(loss time.Duration) report.Expect {
	lo, hi := ruleBand(loss, noRemovalBelow(), emptyBy())
	return yesNo("server: removed every instance during the loss (listed none)", "removed every instance", "kept an instance", lo, hi).
		From(fmt.Sprintf("none goes below %s (an instance's registrant sends a health check every %s and nothing else: silent ≤ %s when the loss "+
			"began); every one goes above %s (the last to be %s silent may wait %s for a run busy with others' probes, %s more for the next, and "+
			"%s on its own probe, + %s); the loss was %.2f s",
			noRemovalBelow(), clientKeepAlive, clientKeepAlive, emptyBy(), keepAliveTime, ejectProbe, ejectEvery, ejectProbe, ruleSlack, loss.Seconds())).
		Says(report.SaysYes("18 s of packet loss to the registry: the registry dropped the instances (heartbeat timeout)").OnlyIf(loss >= articleLoss-ruleSlack)).
		Spread(fmt.Sprintf("a loss between %s and %s removes every instance or not by each connection's silence when the loss began and the ejector's "+
			"phase (seeded by the run's start): the article's removal is one of the outcomes the rule allows", noRemovalBelow(), emptyBy())).
		Because(ejectCause())
}

// serverKept judges the fewest instances the server listed during the
// loss: every one below noRemovalBelow, none above emptyBy.
func (s *nacosIncident) serverKept(m incidentMeasure) report.Check {
	n := float64(m.data.Instances)
	lo, hi := 0.0, n
	switch {
	case m.loss < noRemovalBelow():
		lo = n
	case m.loss > emptyBy():
		hi = 0
	}
	return report.Band("server: fewest instances listed during the loss", lo, hi, "").
		From(fmt.Sprintf("every instance below %s of loss, none above %s (the rules of the removal checks); the loss was %.2f s",
			noRemovalBelow(), emptyBy(), m.loss.Seconds())).
		JudgeText(float64(m.fewest), fmt.Sprintf("%d of %d", m.fewest, m.data.Instances))
}

// blackholeChecks judge the loss: the server's removals, the clients'
// lists, and each caller's failures during the loss and after the heal.
func (s *nacosIncident) blackholeChecks(m incidentMeasure) []report.Check {
	cs := []report.Check{s.serverEjected(m.loss).JudgeBool(m.ejections > 0)}
	if m.ejections > 0 {
		cs = append(cs, report.Band("server: first ejection, after the loss began", noEjectBelow().Seconds(), ejectBy().Seconds(), " s").Digits(2).
			From(fmt.Sprintf("[%s − %s silent before + %s probe − %s, %s + %s + %s + %s]", keepAliveTime, 2*clientKeepAlive, ejectProbe, lowSlack,
				keepAliveTime, ejectEvery, ejectProbe, ruleSlack)).Judge(m.firstEject.Seconds()))
	}
	cs = append(cs, s.serverKept(m), s.serverEmptied(m.loss).JudgeBool(m.emptyAt >= 0))
	if m.emptyAt >= 0 {
		cs = append(cs, report.Band("server: listed no instance, after the loss began", noRemovalBelow().Seconds(), emptyListedBy().Seconds(), " s").Digits(2).
			From(fmt.Sprintf("between the earliest removal of an instance (%s) and the latest (%s) + the %s push delay after which the answered list is refreshed (ServiceStorage)",
				noRemovalBelow(), emptyBy(), pushDelay)).Judge(m.emptyAt.Seconds()))
	}
	cs = append(cs, s.clientsEmptied(m))
	for _, c := range s.callers() {
		switch {
		case m.restart == nil || c.restart == keepsRunning:
			cs = append(cs, s.duringLoss(c.name, c.guard, m), s.afterHeal(c.name, c.guard, m))
		case c.restart == startsEmpty:
			cs = append(cs, s.beforeRestart(c.name, m), s.afterRestart(c, m), s.emptyStartAfterHeal(c.name, m))
		default:
			cs = append(cs, s.beforeRestart(c.name, m), s.afterRestart(c, m), s.afterHeal(c.name, c.guard, m))
		}
	}
	return cs
}

// clientsEmptied judges the article's claim that the clients emptied
// their lists: no client can hold an empty list the server never answered.
func (s *nacosIncident) clientsEmptied(m incidentMeasure) report.Check {
	lo, hi, basis := 0.0, 0.0, "the server never listed no instance: there was no empty list to push or answer"
	if m.emptyAt >= 0 {
		hi, basis = 1, "the server listed none: after the heal a client whose subscription was ejected subscribes again on its new connection, "+
			"and the instances register again on theirs; whichever comes first decides whether an unprotected client is answered the empty list (a race no rule orders)"
	}
	text := "none"
	if len(m.emptied) > 0 {
		text = strings.Join(m.emptied, ", ")
	}
	return yesNo("clients: a caller's client emptied its instance list", "emptied", "kept its list", lo, hi).From(basis).
		Says(report.SaysYes("18 s of packet loss made the clients drop their instance lists").OnlyIf(m.loss >= articleLoss-ruleSlack)).
		Spread("after the heal a client's new subscription and the instances' re-registration race (no rule orders them): "+
			"the article's emptied lists are one of the outcomes").
		Because(ejectCause()).JudgeText(report.B2F(len(m.emptied) > 0), text)
}

// duringLoss judges a caller's failures during the loss: none, whatever
// the server did.
func (s *nacosIncident) duringLoss(name string, g guard, m incidentMeasure) report.Check {
	e := report.Exactly(name+": failures during the loss", 0, "").
		From("a blackholed client receives nothing (no push, no answer) and keeps its cached list on a failed or unanswered read " +
			"(ServiceInfoHolder changes only on an answer; tryToSubscribe uses the cache when the subscribe fails; nacos-sdk-go likewise); " +
			"the instances are alive and called directly")
	n := m.during[name]
	switch g {
	case lbCache:
		e = e.Says(report.SaysValue("the load balancer had no instances: No instances available (503), the whole system failed", float64(n[0])).
			OnlyIf(m.loss >= articleLoss-ruleSlack)).SameCount().
			Because(fmt.Sprintf("nothing reaches a blackholed client: its Nacos client keeps its list through the loss whatever the server does, and an empty list "+
				"arrives, if at all, after the heal; and Nacos 3 over gRPC removes no instance in a loss shorter than %s (%s of silence, at most %s of which "+
				"before the loss, + the %s probe: RuntimeConnectionEjector, NacosRuntimeConnectionEjector)", noRemovalBelow()+lowSlack, keepAliveTime, clientKeepAlive, ejectProbe))
	case fallback, protection, ignoreEmpty:
		e = e.Says(report.SaysValue(remedyClaim(g), 0)).SameCount()
	}
	return e.JudgeText(float64(n[1]), fmt.Sprintf("%d of %d", n[1], n[0]))
}

// remedyClaim is the article's claim for a remedy.
func remedyClaim(g guard) string {
	if g == fallback {
		return "a load balancer that falls back to the last non-empty list keeps serving"
	}
	return "protection against an empty list keeps the old one"
}

// afterHeal judges a caller's failures after the heal, by what the server
// did during the loss and what guards the caller.
func (s *nacosIncident) afterHeal(name string, g guard, m incidentMeasure) report.Check {
	n := m.after[name]
	text := fmt.Sprintf("%d of %d", n[1], n[0])
	if !m.removed {
		return report.Exactly(name+": failures after the heal", 0, "").
			From("the server kept every instance: each client reconnects, its redo registers and subscribes again, and the merged push "+
				"(500 ms delay) carries every instance").Says(report.Says("recovers by itself")).JudgeText(float64(n[1]), text)
	}
	e := s.afterRemoval(name, g, m)
	if g != unguarded && g != lbCache {
		e = e.Says(report.SaysValue(remedyClaim(g), 0)).SameCount()
	}
	if g == protection {
		e = e.Spread("push-empty protection keeps the cache, but the read right after the reconnect (tryToSubscribe) hands its call the server's " +
			"raw answer: whether that answer is empty depends on whether the instances had registered again first (a race)")
	}
	return e.JudgeText(float64(n[1]), text)
}

// afterRemoval is a caller's band after a heal that followed removals.
func (s *nacosIncident) afterRemoval(name string, g guard, m incidentMeasure) report.Expect {
	name += ": failures after the heal (the server had removed instances)"
	switch g {
	case fallback:
		return report.Exactly(name, 0, "").From("an empty list from the discovery client is replaced by the last non-empty one")
	case ignoreEmpty:
		return report.Exactly(name, 0, "").From("nacos-sdk-go ignores an empty list (UpdateCacheWhenEmpty false) and reads the server only when its cache has no entry")
	case protection:
		hi := 1 + math.Ceil(s.Rate*protectedRead.Seconds())
		return report.AtMost(name, hi, "").From(fmt.Sprintf("push-empty protection keeps the cache; the read right after its reconnect (tryToSubscribe) "+
			"hands the call the server's raw answer: 1 + rate × %s", protectedRead))
	}
	window := s.emptyWindow(m)
	basis := fmt.Sprintf("an empty answer after the heal is held until the push that follows the instances' re-registration: rate × (%.2f s until the server "+
		"listed every instance again + %s push delay + %s) + 2", windowUntil(m).Seconds(), pushDelay, deliverSlack)
	if g == lbCache {
		basis += "; LoadBalancer reads its Nacos client only when its entry expired (35 s) or holds an empty list, so no more"
	}
	return report.AtMost(name, math.Floor(s.Rate*window.Seconds())+2, "").From(basis)
}

// windowUntil is how long after the heal the server listed every instance
// again (the rest of the run when it never did).
func windowUntil(m incidentMeasure) time.Duration {
	if m.relist >= 0 {
		return m.relist
	}
	return m.timeline - m.end.At
}

// emptyWindow is the longest an unprotected client's list may be empty
// after the heal.
func (s *nacosIncident) emptyWindow(m incidentMeasure) time.Duration {
	return windowUntil(m) + pushDelay + deliverSlack
}
