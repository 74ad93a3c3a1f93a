package nacosincident

import (
	"fmt"
	"math"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/nacos"
)

// The server's health-check and protection rules (alibaba/nacos at 486e198; protectHelp cites them).
const (
	// checkWithin: a persistent instance whose port refuses connections is marked unhealthy
	// at its next TCP check (checkFailNow), which comes within the task's period: at first
	// LOWER_CHECK_RT 2 s + a random part below TcpHealthParams.max 5 s, later at most 5 s.
	checkWithin = 7 * time.Second
)

// settle is how long after a crash a caller's list follows the server's: the check, the push
// delay, its delivery and slack.
func settle() time.Duration { return checkWithin + pushDelay + deliverSlack + ruleSlack }

// springSettle adds LoadBalancer's cache, read again only once its entry expired.
func springSettle() time.Duration { return settle() + lbCacheTTL }

// protectMeasure is what a nacos-protect-threshold run measured.
type protectMeasure struct {
	names          []string
	rec            nacos.Record
	series         map[string]report.Series
	crash, allDead history.Event
	// stage1 and stage2 count each caller's calls in its settled window after each crash
	// (stage 1's that ended before the second crash): [calls, failed, failed on an instance
	// (ErrInstance)].
	stage1, stage2 map[string][3]int
	// protected1 and protected2 count the server's "protect threshold reached" lines in each
	// stage (from the crash's check on).
	protected1, protected2 int
	// fewestHealthy is the fewest instances the server's admin list showed healthy in stage 1.
	fewestHealthy int
}

// measure fills the measurement; why is non-empty when the run cannot judge.
func (s *protect) measure(h *history.History) (m protectMeasure, why string) {
	m.names = callerNamesOf(false)
	m.series = report.PerSecond(h.Ops, m.names, report.Seconds(h.Timeline))
	if err := h.DataInto(&m.rec); err != nil {
		return m, "the run recorded no Nacos data: " + err.Error()
	}
	var crashes []history.Event
	for _, e := range h.Events {
		if e.Kind == history.CrashInstance && e.Phase == history.Inject {
			if e.Err != "" {
				return m, "a crash failed: " + e.Err
			}
			crashes = append(crashes, e)
		}
	}
	if len(crashes) != 2 {
		return m, fmt.Sprintf("%d crashes recorded, want 2", len(crashes))
	}
	m.crash, m.allDead = crashes[0], crashes[1]
	m.stage1, m.stage2 = map[string][3]int{}, map[string][3]int{}
	for _, n := range m.names {
		d := settle()
		if n == "spring" || n == "spring-fallback" {
			d = springSettle()
		}
		m.stage1[n] = callClasses(endedBy(h.Ops, m.allDead.At), n, m.crash.At+d, m.allDead.At)
		m.stage2[n] = callClasses(h.Ops, n, m.allDead.At+d, h.Timeline)
	}
	for _, e := range m.rec.ServerLog {
		switch {
		case e.Kind != nacos.ProtectThreshold:
		case e.At >= m.allDead.At:
			m.protected2++
		case e.At >= m.crash.At:
			m.protected1++
		}
	}
	m.fewestHealthy = s.Instances
	for _, smp := range m.rec.Server {
		if smp.At >= m.crash.At && smp.At < m.allDead.At && smp.Count >= 0 {
			m.fewestHealthy = min(m.fewestHealthy, smp.Healthy)
		}
	}
	return m, ""
}

// endedBy keeps the ops that ended before at: a call in flight when the next crash closes its
// instance's endpoint is that crash's, not the stage's.
func endedBy(ops []history.Op, at time.Duration) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.End < at {
			out = append(out, op)
		}
	}
	return out
}

// callClasses counts caller's calls due in [from, to): all, failed, failed on an instance.
func callClasses(ops []history.Op, caller string, from, to time.Duration) [3]int {
	return callsByClass(ops, caller, from, to, history.ErrInstance)
}

// triggers reports whether the rule hands out every instance with healthy of total healthy:
// healthy ÷ total ≤ max(threshold, 0) (ServiceUtil.selectInstancesWithHealthyProtection).
func (s *protect) triggers(healthy int) bool {
	return float64(healthy)/float64(s.Instances) <= math.Max(s.Threshold, 0)
}

// Judge turns a nacos-protect-threshold run into the result (pure).
func (s *protect) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, why := s.measure(h)
	res.Series = m.series
	res.AddTable(report.SecondsTable(fmt.Sprintf("Per-second ok/fail: %d of %d persistent instances die, then the rest; protectThreshold %g",
		s.Crash, s.Instances, s.Threshold), s.rows(), m.series, h.Events))
	if why != "" {
		e, _ := s.serverCheck(1, m)
		res.AddCheck(e.Invalid(why))
		return res
	}
	res.Gates = append(res.Gates, s.gates(h, m)...)
	s.metrics(res.Metrics, m)
	for _, stage := range []int{1, 2} {
		e, n := s.serverCheck(stage, m)
		res.AddCheck(e.JudgeText(report.B2F(n > 0), fmt.Sprintf("%d times", n)))
	}
	for _, c := range incidentCallersOf(false) {
		res.AddCheck(s.stage1Check(c.name, m), s.stage2Check(c.name, m))
	}
	s.conclude(res, m)
	return res
}

// rows are the per-second table's rows.
func (s *protect) rows() []report.Row { return callerRows() }

// protectRule is the server's rule, cited.
const protectRule = "ServiceUtil.selectInstancesWithHealthyProtection (naming/.../utils/ServiceUtil.java:257–275): a threshold below 0 " +
	"counts as 0, and when healthy ÷ all ≤ threshold the server hands out every instance with the unhealthy ones marked healthy " +
	"(and logs 'protect threshold reached, return all ips'); pushes and subscribe answers go through it " +
	"(PushExecutorRpcImpl.java:62, SubscribeServiceRequestHandler.java:82)"

// serverCheck is whether the server's protection fired in stage 1 or 2, and how often it did.
func (s *protect) serverCheck(stage int, m protectMeasure) (report.Expect, int) {
	healthy, n, at := s.Instances-s.Crash, m.protected1, "after the first crash"
	if stage == 2 {
		healthy, n, at = 0, m.protected2, "once every instance was dead"
	}
	e := report.No(fmt.Sprintf("server: protect threshold reached %s", at), "yes", "no")
	if s.triggers(healthy) {
		e = report.Yes(fmt.Sprintf("server: protect threshold reached %s", at), "yes", "no")
	}
	e = e.From(fmt.Sprintf("%s; %d of %d healthy: %d/%d %s %g", protectRule, healthy, s.Instances, healthy, s.Instances,
		map[bool]string{true: "≤", false: ">"}[s.triggers(healthy)], s.Threshold))
	if stage == 2 {
		e = e.Says(report.SaysNo("nacos#11123: a protectThreshold of 0 turns the protection off")).
			Because("a threshold of 0 still fires when no instance is healthy: 0 ÷ n ≤ 0, and a negative one is clamped to 0")
	}
	return e.About("server"), n
}

// stage1Check is a caller's failed share once the first crash settled.
func (s *protect) stage1Check(name string, m protectMeasure) report.Check {
	n := m.stage1[name]
	p := 0.0
	if s.triggers(s.Instances - s.Crash) {
		p = float64(s.Crash) / float64(s.Instances)
	}
	lo, hi := shareBand(p, n[0])
	e := report.Band(name+": failed share of its calls once the first crash settled", 100*lo, 100*hi, " %").About(name).Digits(1).
		From(fmt.Sprintf("%s; the dead instances are marked unhealthy at their next TCP check (connection refused: checkFailNow) within %s, "+
			"pushed %s later; clients pick among the healthy ones (weighted random; LoadBalancer round robin, its list %s old at most): "+
			"%s of the calls go to a dead instance; band p ± 4√(p(1−p)/n) + 1/n, n = %d", protectRule, checkWithin, pushDelay, lbCacheTTL,
			map[bool]string{true: fmt.Sprintf("p = %d/%d", s.Crash, s.Instances), false: "none (p = 0)"}[p > 0], n[0]))
	if n[0] == 0 {
		return e.Invalid("no call due in the settled window")
	}
	return e.JudgeText(report.Pct(n[1], n[0]), fmt.Sprintf("%d of %d", n[1], n[0]))
}

// stage2Check is the share of a caller's failures, once every instance was dead, that hit a
// dead instance (rather than finding none).
func (s *protect) stage2Check(name string, m protectMeasure) report.Check {
	n := m.stage2[name]
	e := report.Band(name+": share of its failures that hit a dead instance, once every instance was dead", 100, 100, " %").About(name).
		From(protectRule + "; 0 of n healthy ≤ any threshold, so the server hands out every instance marked healthy and every call " +
			"goes to a dead one (connection refused), none finds the list empty").
		Says(report.SaysValue("nacos#11123: with protectThreshold 0 the client gets no instance", 0)).SameShare().
		Because("the threshold cannot be turned off: below 0 it counts as 0, and 0 ÷ n ≤ 0 fires it")
	if n[1] == 0 {
		return e.Invalid("no call failed in the window")
	}
	return e.JudgeText(report.Pct(n[2], n[1]), fmt.Sprintf("%d of %d failed (of %d calls)", n[2], n[1], n[0]))
}

// shareBand is p ± 4σ + 1/n, within [0, 1].
func shareBand(p float64, n int) (lo, hi float64) {
	if n == 0 {
		return p, p
	}
	w := 4*math.Sqrt(p*(1-p)/float64(n)) + 1/float64(n)
	if p == 0 {
		return 0, 0
	}
	return math.Max(0, p-w), math.Min(1, p+w)
}

// gates: every instance registered, every caller served in the second before the first
// crash (its calls that ended before it: a call in flight at the crash may meet the closing
// endpoint).
func (s *protect) gates(h *history.History, m protectMeasure) []report.Gate {
	var unsteady []string
	for _, n := range m.names {
		if b := endedBefore(h.Ops, n, m.crash.At-time.Second, m.crash.At); b[0] == 0 || b[1] > 0 {
			unsteady = append(unsteady, fmt.Sprintf("%s %d of %d failed", n, b[1], b[0]))
		}
	}
	var failed []string
	for i, r := range m.rec.Registrations {
		if r.Err != "" {
			failed = append(failed, fmt.Sprintf("instance-%d: %s", i, report.ShortErr(r.Err)))
		}
	}
	return []report.Gate{
		gate("every instance registered", failed, "all", "no registration failed"),
		gate("every caller served in the second before the first crash", unsteady, "none failed", "no failed call that ended before the crash"),
	}
}

func (s *protect) metrics(mt report.Metrics, m protectMeasure) {
	mt["threshold"] = s.Threshold
	mt["crash_s"], mt["all_dead_s"] = m.crash.At.Seconds(), m.allDead.At.Seconds()
	mt["server.protected_stage1"], mt["server.protected_stage2"] = float64(m.protected1), float64(m.protected2)
	mt["server.fewest_healthy_stage1"] = float64(m.fewestHealthy)
	for _, n := range m.names {
		mt.AddSeriesMetrics(n, m.series[n])
		a, b := m.stage1[n], m.stage2[n]
		mt[n+".stage1_fail_pct"] = report.Pct(a[1], a[0])
		mt[n+".stage2_fail_pct"] = report.Pct(b[1], b[0])
		mt[n+".stage2_dead_instance_pct"] = report.Pct(b[2], b[1])
	}
}

// conclude says what the threshold did.
func (s *protect) conclude(res *report.Result, m protectMeasure) {
	var parts []string
	for _, n := range m.names {
		a := m.stage1[n]
		parts = append(parts, fmt.Sprintf("%s %.0f %%", n, report.Pct(a[1], a[0])))
	}
	res.Conclude(fmt.Sprintf("protectThreshold %g: with %d of %d instances dead the server's admin list showed %d healthy and its "+
		"protection fired %d times; the callers then failed %v of their calls. Once every instance was dead it fired %d times "+
		"and the callers' failures hit dead instances.", s.Threshold, s.Crash, s.Instances, m.fewestHealthy, m.protected1, parts, m.protected2))
}

// endedBefore counts caller's calls due in [from, to) that ended before to: [calls, failed].
func endedBefore(ops []history.Op, caller string, from, to time.Duration) [2]int {
	var out [2]int
	for _, op := range history.Filter(ops, caller) {
		if op.Kind == history.OpCall && op.Scheduled >= from && op.Scheduled < to && op.End < to {
			out[0]++
			out[1] += b2i(op.Outcome != history.OK)
		}
	}
	return out
}
