package nacosincident

import (
	"fmt"

	"sdchaos/report"
)

// saturated is the share of the quota the server must have used over the storm window to
// count as held at its quota.
const saturated = 0.9

// fellOver reports whether the phase's server stopped answering after the heal: a readiness
// probe (1 s timeout) or a list reading failed.
func (pm phaseMeasure) fellOver() bool { return pm.readyFails > 0 || pm.listFails > 0 }

// quotaUse is the share of the CPU quota the server used over the storm window.
func (s *nacosStorm) quotaUse(pm phaseMeasure) float64 {
	return pm.cpuStorm.Seconds() / (stormWindow(pm.spread).Seconds() * s.CPULimit)
}

// limitChecks judge the scaled storm (--cpu-limit): the article's claim that the immediate
// re-registration knocked the recovering server over, and that jitter spares it.
func (s *nacosStorm) limitChecks(m stormMeasure) []report.Check {
	imm, jit := m.phases[stormImmediate], m.phases[stormJitter]
	use := s.quotaUse(imm)
	name := fmt.Sprintf("immediate: the recovering server stopped answering after the heal (%d instances, %g CPU)", m.data.Instances, s.CPULimit)
	e := report.No(name, "yes", "no")
	if use >= saturated {
		e = report.Yes(name, "yes", "no")
	}
	checks := []report.Check{e.From(fmt.Sprintf("a server held at its CPU quota over the storm window (it used %.0f %% of %g CPU × %.1f s; held means ≥ %.0f %%) "+
		"serves the re-registrations, pushes and probes of the storm from a queue it works off no faster than the quota: a readiness probe "+
		"(1 s timeout) or a list reading then waits behind it and fails; one below the quota answers them as they come", 100*use, s.CPULimit,
		stormWindow(imm.spread).Seconds(), 100*saturated)).
		Says(report.SaysYes("when the network came back, hundreds of pods re-registered at once and the CPU spike knocked the recovering registry over")).
		JudgeText(report.B2F(imm.fellOver()), fmt.Sprintf("%s (%d readiness probes, %d list readings failed)", yesNoWord(imm.fellOver()), imm.readyFails, imm.listFails))}
	checks = append(checks, report.AtMost("jitter: the server's failed readiness probes and list readings after the heal ≤ immediate's",
		float64(imm.readyFails+imm.listFails), "").
		From(fmt.Sprintf("the jitter spreads the same reconnects and re-registrations over --spread (%s), so under the same quota the server's queue "+
			"is never longer than after an immediate heal (the band is the other phase's figure, as the article compares them)", m.data.Spread)).
		Says(report.Says("jittered back-off is the remedy: the recovering registry survives")).
		JudgeText(float64(jit.readyFails+jit.listFails), fmt.Sprintf("%d (immediate %d)", jit.readyFails+jit.listFails, imm.readyFails+imm.listFails)))
	return checks
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
