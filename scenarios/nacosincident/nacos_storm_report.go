package nacosincident

import (
	"fmt"
	"strings"
	"time"

	"sdchaos/report"
)

// phaseTable sets the two phases side by side.
func (s *nacosStorm) phaseTable(m stormMeasure) report.Table {
	t := report.Table{Title: fmt.Sprintf("%d instances re-registering on a real Nacos server (each phase on its own fresh server; list read every %s, server probed every %s)",
		m.data.Instances, m.data.SamplePeriod, m.data.ProbePeriod), Header: []string{"", stormImmediate, stormJitter}}
	row := func(name string, f func(phaseMeasure) string) {
		t.Rows = append(t.Rows, []string{name, f(m.phases[stormImmediate]), f(m.phases[stormJitter])})
	}
	row("server start (s)", func(pm phaseMeasure) string { return fmt.Sprintf("%.1f", pm.p.ServerStart.Seconds()) })
	row("first registrations: median / max (s), failed", func(pm phaseMeasure) string {
		return fmt.Sprintf("%.2f / %.2f, %d", pm.regP50.Seconds(), pm.regMax.Seconds(), pm.regFailed)
	})
	row("loss (s); links healed over (s)", func(pm phaseMeasure) string { return fmt.Sprintf("%.2f; %.2f", pm.loss.Seconds(), pm.spread.Seconds()) })
	row("first removed; listed none, after the loss began (s)", func(pm phaseMeasure) string {
		return secondsText(pm.firstGone) + "; " + secondsText(pm.emptyAt)
	})
	row("ejections, disconnects in the loss (server log)", func(pm phaseMeasure) string { return fmt.Sprintf("%d, %d", pm.ejections, pm.disconnects) })
	row("every instance listed again, after the first heal (s)", func(pm phaseMeasure) string { return secondsText(pm.relist) })
	row("peak re-registrations per bin (at, s after the first heal)", func(pm phaseMeasure) string {
		return fmt.Sprintf("%d (%.1f)", pm.peak, pm.peakAt.Seconds())
	})
	row("readiness / list failures after the heal", func(pm phaseMeasure) string { return fmt.Sprintf("%d / %d", pm.readyFails, pm.listFails) })
	row("server CPU (s): loss, storm window, phase; peak (cores)", func(pm phaseMeasure) string {
		return fmt.Sprintf("%.2f, %.2f, %.2f; %.2f", pm.cpuLoss.Seconds(), pm.cpuStorm.Seconds(), pm.cpuPhase.Seconds(), pm.cpuPeak)
	})
	row("server RSS (MiB): at the fault, most after", func(pm phaseMeasure) string { return fmt.Sprintf("%d, %d", pm.rssFault>>20, pm.rssMax>>20) })
	t.Notes = append(t.Notes, fmt.Sprintf("the storm window is the first %s after the first heal (--spread + %s, the re-listing bound)", stormWindow(m.data.Spread), relistBy()))
	return t
}

// secondsText is d in seconds, "—" when not measured.
func secondsText(d time.Duration) string {
	if d >= 0 {
		return fmt.Sprintf("%.2f", d.Seconds())
	}
	return "—"
}

// concludeStorm states what the run showed, in the article's terms.
func (s *nacosStorm) concludeStorm(res *report.Result, m stormMeasure) {
	imm, jit := m.phases[stormImmediate], m.phases[stormJitter]
	res.Conclude(fmt.Sprintf("%d instances lost a real Nacos server for %.0f s; it listed none %s s (immediate) and %s s (jitter) into the loss. "+
		"Healed at once, the server listed every instance again %s s later, at most %d added in one %s bin; healed over %.2f s (the harness's jitter), "+
		"%s s after the first heal, at most %d per bin.", m.data.Instances, s.Loss.Seconds(), secondsText(imm.emptyAt), secondsText(jit.emptyAt),
		secondsText(imm.relist), imm.peak, m.data.SamplePeriod, jit.spread.Seconds(), secondsText(jit.relist), jit.peak))
	var fell []string
	for _, st := range stormStrategies {
		pm := m.phases[st]
		if pm.readyFails+pm.listFails > 0 {
			fell = append(fell, fmt.Sprintf("%s: %d readiness and %d list failures", st, pm.readyFails, pm.listFails))
		}
	}
	if len(fell) == 0 {
		res.Conclude(fmt.Sprintf("The server did not fall over (the article's did, under hundreds of pods; reported, not judged: no rule says when a server falls over): "+
			"its readiness endpoint and its admin API answered throughout both storms (CPU in the storm window %.2f s "+
			"immediate, %.2f s jitter; peak %.2f and %.2f cores).", imm.cpuStorm.Seconds(), jit.cpuStorm.Seconds(), imm.cpuPeak, jit.cpuPeak))
		return
	}
	res.Conclude("The server faltered after the heal: " + strings.Join(fell, "; ") + ".")
}
