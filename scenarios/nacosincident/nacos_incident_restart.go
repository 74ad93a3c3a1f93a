package nacosincident

import (
	"fmt"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/nacos"
)

// restartMeasure is what one restarted caller did: when it was killed,
// when its second process made its first call (−1: never), its calls in
// the loss before the kill, from that first call while the server was
// unreachable (until subscribeRetry before the heal) and after the heal
// ([calls, failed]), whether its listener's subscribe failed at start,
// and the median duration of its calls while unreachable.
type restartMeasure struct {
	killed, firstCall          time.Duration
	before, unreachable, after [2]int
	setupFailed                bool
	medianCall                 time.Duration
}

// startup is how long the caller was without calls: from its kill to its
// second process's first call.
func (r restartMeasure) startup() time.Duration { return r.firstCall - r.killed }

// measureRestarts fills m.restart for every restarted caller; why is
// non-empty when one has no restart recorded.
func (s *nacosIncident) measureRestarts(h *history.History, m *incidentMeasure) (why string) {
	m.restart = map[string]restartMeasure{}
	for _, n := range s.restarted() {
		c := m.clients[n]
		if c.killed < 0 {
			return fmt.Sprintf("%s was not restarted", n)
		}
		r := restartMeasure{killed: c.killed, firstCall: -1, setupFailed: c.setupFailed}
		r.before = callsOf(h.Ops, n, m.start.At, c.killed)
		if first, ok := firstCallFrom(h.Ops, n, c.killed); ok {
			r.firstCall = first
			r.unreachable = callsOf(h.Ops, n, first, m.end.At-subscribeRetry)
			r.medianCall = medianDuration(h.Ops, n, first, m.end.At-subscribeRetry)
		}
		r.after = m.after[n]
		m.restart[n] = r
	}
	return ""
}

// firstCallFrom is when the first call of caller due at or after from was due.
func firstCallFrom(ops []history.Op, caller string, from time.Duration) (time.Duration, bool) {
	first, ok := time.Duration(0), false
	for _, op := range history.Filter(ops, caller) {
		if op.Scheduled >= from && (!ok || op.Scheduled < first) {
			first, ok = op.Scheduled, true
		}
	}
	return first, ok
}

// medianDuration is the median of End − Start of caller's calls due in [from, to).
func medianDuration(ops []history.Op, caller string, from, to time.Duration) time.Duration {
	var ds []float64
	for _, op := range history.Filter(ops, caller) {
		if op.Scheduled >= from && op.Scheduled < to {
			ds = append(ds, float64(op.End-op.Start))
		}
	}
	if len(ds) == 0 {
		return -1
	}
	return time.Duration(report.Median(ds))
}

// restartClaim is the article's claim for a caller restarted during the
// outage: with the disk cache loaded at start it serves, without it every
// call fails.
func restartClaim(k restartKind) report.Claim {
	if k == startsCached {
		return report.SaysValue("a caller restarted during the outage with naming-load-cache-at-start=true serves from its disk cache", 0)
	}
	return report.SaysValue("a caller restarted during the outage without the cache loaded at start has no instance: every call fails", 100)
}

// restartBasis is the rule behind a restarted caller's band while the
// server is unreachable, by its client (c).
func restartBasis(c history.CallerInfo, k restartKind) string {
	switch {
	case k == startsCached && c.Language == history.Java:
		b := "namingLoadCacheAtStart true: ServiceInfoHolder starts from DiskCache.read of its cache dir (JM.SNAPSHOT.PATH/nacos/naming/public, " +
			"written by its first process); each read finds the service cached but not subscribed (NacosNamingService.tryToSubscribe), tries to " +
			"subscribe, and uses the cache when that throws"
		if c.Client == nacos.ClientSpring {
			b += "; Spring Cloud Alibaba passes naming-load-cache-at-start to the client, and LoadBalancer keeps the list it got 35 s"
		}
		return b
	case k == startsCached:
		return "NotLoadCacheAtStart false (the SDK's default): its ServiceInfoHolder loads its cache dir at start; SelectOneHealthyInstance reads " +
			"the cache and asks the server only on a miss"
	case c.Client == nacos.ClientSpring:
		return "naming-load-cache-at-start false: the Nacos client starts with no list, each read subscribes (tryToSubscribe) and RpcClient.request " +
			"throws 'Client not connected' while it has no connection; NacosDiscoveryClient.getInstances rethrows (failure-tolerance-enabled false; " +
			"its ServiceCache lives in memory and a restart empties it) and LoadBalancer's supplier answers an empty list: 'No instances available'"
	case c.Language == history.Java:
		return "namingLoadCacheAtStart false: ServiceInfoHolder starts with no list; each read subscribes (tryToSubscribe) and RpcClient.request " +
			"throws 'Client not connected' while the client has no connection"
	}
	return "NotLoadCacheAtStart true: its ServiceInfoHolder starts with no entry; SelectOneHealthyInstance subscribes on a miss and the " +
		"request fails 'client not connected' while the client has no connection"
}

// afterRestart judges a restarted caller's failed share of its calls from
// its first call until the heal (less subscribeRetry): the article's claim.
func (s *nacosIncident) afterRestart(c incidentCaller, m incidentMeasure) report.Check {
	r := m.restart[c.name]
	want := 100.0
	if c.restart == startsCached {
		want = 0
	}
	e := report.Band(c.name+": failed share of its calls after its restart, while the server was unreachable", want, want, " %").
		From(restartBasis(m.callers[c.name], c.restart) + fmt.Sprintf("; calls due from its first call to %s before the heal (a read then may be answered after it)", subscribeRetry)).
		Says(restartClaim(c.restart)).SameShare()
	n := r.unreachable
	if n[0] == 0 {
		return e.Invalid("no call of its second process was due before the heal")
	}
	return e.JudgeText(report.Pct(n[1], n[0]), fmt.Sprintf("%d of %d", n[1], n[0]))
}

// beforeRestart judges a restarted caller's failures in the loss before
// its kill: none, as every caller's during the loss.
func (s *nacosIncident) beforeRestart(name string, m incidentMeasure) report.Check {
	n := m.restart[name].before
	return report.Exactly(name+": failures during the loss, before its restart", 0, "").
		From("a blackholed client receives nothing and keeps its cached list (ServiceInfoHolder changes only on an answer); the instances are alive").
		JudgeText(float64(n[1]), fmt.Sprintf("%d of %d", n[1], n[0]))
}

// emptyStartAfterHeal judges the failures after the heal of a caller
// that restarted with no list: it fails until its client connects (an
// attempt in flight at the heal is answered then, else the next comes
// within reconnectSleep) and, if the server lists none then, until the
// push after the re-registration.
func (s *nacosIncident) emptyStartAfterHeal(name string, m incidentMeasure) report.Check {
	window := max(reconnectSleep, windowUntil(m)+pushDelay) + deliverSlack
	n := m.after[name]
	return report.AtMost(name+": failures after the heal (it restarted with no list)", float64(int(s.Rate*window.Seconds()))+2, "").
		From(fmt.Sprintf("every call fails until its client connects — at the heal when an attempt is in flight (the blackhole held its bytes), "+
			"else within the reconnect loop's longest sleep, %s (min(turns + 1, 50) × 100 ms) — and its next read subscribes; if the server then "+
			"lists no instance, until the push after the re-registration (%.2f s after the heal + %s): rate × (max(%s, %.2f s) + %s) + 2",
			reconnectSleep, windowUntil(m).Seconds(), pushDelay, reconnectSleep, (windowUntil(m)+pushDelay).Seconds(), deliverSlack)).
		Says(report.Says("recovers once the registry is back")).JudgeText(float64(n[1]), fmt.Sprintf("%d of %d", n[1], n[0]))
}

// restartChecks judge what every restart shares: the clients' start-up
// attempts against an unreachable server, their listener's subscribe,
// and plain-cache's reads, each trying to subscribe first.
func (s *nacosIncident) restartChecks(m incidentMeasure) []report.Check {
	cs := []report.Check{s.startupCheck(m, true), s.startupCheck(m, false)}
	var failed, all []string
	for _, n := range s.restarted() {
		all = append(all, n)
		if m.restart[n].setupFailed {
			failed = append(failed, n)
		}
	}
	cs = append(cs, report.Band("restarted callers: their listener's subscribe at start failed", float64(len(all)), float64(len(all)), "").
		From("a cached service is not a subscribed one: NamingClientProxyDelegate.subscribe asks the server whenever the service is not marked "+
			"subscribed, even with the disk cache loaded (alibaba/nacos#7550), and RpcClient.request throws 'Client not connected'; nacos-sdk-go's "+
			"NamingProxyDelegate.Subscribe likewise (nacos-sdk-go#519); a blackholed server answers nothing").
		JudgeText(float64(len(failed)), fmt.Sprintf("%d of %d (%s)", len(failed), len(all), orNone(failed))))
	if r, ok := m.restart["plain-cache"]; ok && r.medianCall >= 0 {
		lo := time.Duration(requestTries) * 100 * time.Millisecond
		cs = append(cs, report.Band("plain-cache: median duration of its calls after its restart, while unreachable", lo.Seconds(), (lo+ruleSlack).Seconds(), " s").Digits(3).
			From(fmt.Sprintf("each selectOneHealthyInstance first tries to subscribe (tryToSubscribe: cached, not subscribed): RpcClient.request tries "+
				"%d times, sleeping 100 ms after each, before it throws and the cache answers: ≥ %s, + %s", requestTries, lo, ruleSlack)).
			Judge(r.medianCall.Seconds()))
	}
	return cs
}

// startupCheck judges the quickest restarted Java (or Go) caller's time
// from its kill to its first call: at least its client's start-up
// connection attempts, each waiting for a server check the blackhole holds.
func (s *nacosIncident) startupCheck(m incidentMeasure, java bool) report.Check {
	lo, who, rule := goStartup(), "Go", fmt.Sprintf("nacos-sdk-go's RpcClient.Start tries %d connections (REQUEST_DOMAIN_RETRY_TIME), each waiting %s "+
		"for its server check (DEFAULT_TIMEOUT_MILLS)", goStartupConnects, serverCheckTimeout)
	if java {
		lo, who, rule = javaStartup(), "Java", fmt.Sprintf("nacos-client's RpcClient.start tries %d connections (retryTimes 3, + 1), each waiting %s "+
			"for its server check (serverCheckTimeOut), before the NamingService is built; then the JVM's own start", javaStartupConnects, serverCheckTimeout)
	}
	name := fmt.Sprintf("restarted %s callers: time from the kill to the first call (the quickest)", who)
	quickest, parts := time.Duration(-1), []string(nil)
	for _, n := range s.restarted() {
		r := m.restart[n]
		if (m.callers[n].Language == history.Java) != java || r.firstCall < 0 {
			continue
		}
		if quickest < 0 || r.startup() < quickest {
			quickest = r.startup()
		}
		parts = append(parts, fmt.Sprintf("%s %.1f s", n, r.startup().Seconds()))
	}
	e := report.AtLeast(name, (lo - lowSlack).Seconds(), " s").Digits(2).From(rule + "; the blackhole holds every answer")
	if quickest < 0 {
		return e.Invalid("no restarted " + who + " caller called again")
	}
	return e.JudgeText(quickest.Seconds(), strings.Join(parts, ", "))
}

// restartGate holds when every restarted caller called again while the
// server was still unreachable (else its restart cannot be judged).
func (s *nacosIncident) restartGate(m incidentMeasure) report.Gate {
	var late []string
	for _, n := range s.restarted() {
		if r := m.restart[n]; r.firstCall < 0 || r.unreachable[0] == 0 {
			late = append(late, n)
		}
	}
	return gate("every restarted caller called again while the server was unreachable", late, "all", fmt.Sprintf("a call due before heal − %s", subscribeRetry))
}

// restartMetrics are the restart's metrics: when, and per restarted
// caller its start-up and its calls while unreachable.
func (s *nacosIncident) restartMetrics(mt report.Metrics, m incidentMeasure) {
	for _, n := range s.restarted() {
		r := m.restart[n]
		mt["restart_at_s"] = r.killed.Seconds()
		mt[n+".restart_startup_s"] = secondsOrNaN(r.startup())
		if r.firstCall < 0 {
			mt[n+".restart_startup_s"] = secondsOrNaN(-1)
		}
		mt[n+".calls_after_restart"], mt[n+".fail_after_restart"] = float64(r.unreachable[0]), float64(r.unreachable[1])
		mt[n+".setup_failed"] = report.B2F(r.setupFailed)
	}
	if r, ok := m.restart["plain-cache"]; ok {
		mt["plain-cache.median_call_after_restart_s"] = secondsOrNaN(r.medianCall)
	}
}

// concludeRestart says what the restarted callers did.
func (s *nacosIncident) concludeRestart(res *report.Result, m incidentMeasure) {
	var cached, empty []string
	for _, c := range s.callers() {
		r, ok := m.restart[c.name]
		if !ok {
			continue
		}
		say := fmt.Sprintf("%s %d of %d (first call %.1f s after its kill)", c.name, r.unreachable[1], r.unreachable[0], r.startup().Seconds())
		if c.restart == startsCached {
			cached = append(cached, say)
		} else {
			empty = append(empty, say)
		}
	}
	res.Conclude(fmt.Sprintf("Restarted %.2f s into the loss, on their own disk caches, the callers failed, from their first call until the heal: "+
		"with the cache loaded at start %s; without it %s.", (m.restart[s.restarted()[0]].killed - m.start.At).Seconds(), orNone(cached), orNone(empty)))
}
