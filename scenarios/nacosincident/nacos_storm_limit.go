package nacosincident

import (
	"fmt"

	"sdchaos/report"
)

// fellOver reports whether the phase's server stopped answering after the heal: a readiness
// probe (1 s timeout) or a list reading failed.
func (pm phaseMeasure) fellOver() bool { return pm.readyFails > 0 || pm.listFails > 0 }

// quotaUse is the share of the CPU quota the server used over the storm window.
func (s *nacosStorm) quotaUse(pm phaseMeasure) float64 {
	return pm.cpuStorm.Seconds() / (stormWindow(pm.spread).Seconds() * s.CPULimit)
}

// capped reports whether the run put the server under a CPU quota (--cpu-limit): then its
// timings (when the ejector removed the instances, when they were listed again, how many in
// one bin) follow the quota's queue, which no rule bounds: the bands are for a server whose
// CPU is not capped. The quota's bursts count, not its average: a server below its quota on
// average over the loss can still have its ejector's run throttled past the uncapped band.
func (s *nacosStorm) capped() bool { return s.CPULimit > 0 }

// unjudgedCapped says why a phase's figure is reported, not judged, under a CPU quota.
func (s *nacosStorm) unjudgedCapped(st string, pm phaseMeasure, what, measured string) string {
	return fmt.Sprintf("%s: %s, %s (reported, not judged: the server's CPU was capped at %g, %.0f %% of it used over the storm "+
		"window, and it served the storm from the quota's queue, which no rule bounds; the bands are for a server whose CPU is not capped).",
		st, what, measured, s.CPULimit, 100*s.quotaUse(pm))
}

// limitConclusions report the scaled storm (--cpu-limit) against the article's claims that the
// immediate re-registration knocked the recovering server over and that jitter spares it.
// Neither is judged: a JVM held at its quota does not stop answering a probe for being held (a
// server at 0.25 CPU is held at it through the loss too), and no rule says when its queue
// makes a 1 s readiness probe or a list reading fail.
func (s *nacosStorm) limitConclusions(res *report.Result, m stormMeasure) {
	imm, jit := m.phases[stormImmediate], m.phases[stormJitter]
	res.Conclude(fmt.Sprintf("Under %g CPU the server used %.0f %% of its quota over the loss and %.0f %% over the immediate storm window "+
		"(%.0f %% over the jittered one). Knocked over by the immediate re-registration (the article: yes)? %s: %d readiness probes and %d list "+
		"readings failed after the heal; with jitter %d and %d (the article: jitter spares it). Reported, not judged: no rule says when a server "+
		"held at its quota stops answering.", s.CPULimit, 100*s.lossQuotaUse(imm), 100*s.quotaUse(imm), 100*s.quotaUse(jit),
		yesNoWord(imm.fellOver()), imm.readyFails, imm.listFails, jit.readyFails, jit.listFails))
}

// lossQuotaUse is the share of the CPU quota the server used over the loss, before any heal.
func (s *nacosStorm) lossQuotaUse(pm phaseMeasure) float64 {
	if pm.loss <= 0 {
		return 0
	}
	return pm.cpuLoss.Seconds() / (pm.loss.Seconds() * s.CPULimit)
}

// yesNoWord is "yes" or "no".
func yesNoWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// limitMetrics are the scaled storm's figures per phase.
func (s *nacosStorm) limitMetrics(mt report.Metrics, m stormMeasure) {
	mt["cpu_limit"] = s.CPULimit
	for _, st := range stormStrategies {
		pm := m.phases[st]
		mt[st+".fell_over"] = report.B2F(pm.fellOver())
		mt[st+".quota_use_storm"] = s.quotaUse(pm)
		mt[st+".throttled_periods"] = float64(pm.p.Throttled)
	}
}
