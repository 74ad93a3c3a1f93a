package nacosincident

import (
	"fmt"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// Judge turns a nacos-storm run into the result (pure).
func (s *nacosStorm) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, why := s.measure(h)
	res.Events = stormMarks(m.data.Phases)
	if why != "" {
		res.AddCheck(s.removedAll(stormImmediate, s.Loss).Invalid(why))
		return res
	}
	res.AddTable(s.phaseTable(m))
	for _, st := range stormStrategies {
		pm := m.phases[st]
		res.Gates = append(res.Gates, s.stormGates(st, pm, m.data.Instances)...)
		s.phaseMetrics(res.Metrics, st, pm)
		cs, notes := s.phaseChecks(st, pm)
		res.AddCheck(cs...)
		for _, n := range notes {
			res.Conclude(n)
		}
		if s.capped() {
			res.Conclude(s.unjudgedCapped(st, pm, "when every instance was listed again", fmt.Sprintf("%s s after the first heal", secondsText(pm.relist))))
		} else {
			res.AddCheck(s.relisted(st, pm))
		}
	}
	imm, jit := m.phases[stormImmediate], m.phases[stormJitter]
	if s.capped() {
		res.Conclude(s.unjudgedCapped(stormJitter, jit, "its peak re-registrations per bin against the immediate heal's",
			fmt.Sprintf("%d against %d", jit.peak, imm.peak)))
	} else {
		res.AddCheck(s.peakCheck(m))
	}
	if s.CPULimit > 0 {
		s.limitConclusions(res, m)
		s.limitMetrics(res.Metrics, m)
	}
	s.concludeStorm(res, m)
	return res
}

// stormGates are a phase's validity gates: its server was ready and
// listed every instance before the fault, every instance registered, and
// every link's heal took effect.
func (s *nacosStorm) stormGates(st string, pm phaseMeasure, n int) []report.Gate {
	return []report.Gate{
		{Name: st + ": every instance registered", OK: pm.regFailed == 0,
			Measured: fmt.Sprintf("%d of %d failed", pm.regFailed, len(pm.p.Registrations)), Limit: "none failed"},
		{Name: st + ": the server listed every instance before the fault", OK: pm.listedBefore == n,
			Measured: fmt.Sprintf("%d", pm.listedBefore), Limit: fmt.Sprintf("%d", n)},
		{Name: st + ": the server was ready before the fault", OK: pm.unready == 0,
			Measured: fmt.Sprintf("%d readiness probes failed", pm.unready), Limit: "none failed"},
		{Name: st + ": every link was healed", OK: pm.p.HealErrs == 0,
			Measured: fmt.Sprintf("%d heals failed", pm.p.HealErrs), Limit: "none failed"},
		{Name: st + ": the loss lasted --loss", OK: (pm.loss - s.Loss).Abs() <= ruleSlack,
			Measured: fmt.Sprintf("%.3f s", pm.loss.Seconds()), Limit: fmt.Sprintf("%s ± %s", s.Loss, ruleSlack)},
	}
}

// phaseChecks judge one phase: the removal during the loss (the ejection
// rule) and no instance listed before its own link healed. When the
// server's CPU is capped (--cpu-limit), the removal is reported instead
// (notes): the ejector's runs wait behind the quota.
func (s *nacosStorm) phaseChecks(st string, pm phaseMeasure) (cs []report.Check, notes []string) {
	if s.capped() {
		notes = append(notes, fmt.Sprintf("%s: fewest listed %d during the loss; the first instance removed %s s and none listed %s s after "+
			"it began (reported, not judged: the server's CPU was capped at %g, %.0f %% of it used over the loss, and the ejector's runs "+
			"wait behind the quota; the bands are for a server whose CPU is not capped).", st, pm.fewest, secondsText(pm.firstGone),
			secondsText(pm.emptyAt), s.CPULimit, 100*s.lossQuotaUse(pm)))
	} else {
		cs = append(cs, s.removalChecks(st, pm)...)
	}
	if pm.emptyAt >= 0 {
		cs = append(cs, report.Exactly(st+": most instances listed beyond the links healed by then", 0, "").
			From("the server had removed every instance, and an instance registers again only over its own link once healed (the SDK's redo on reconnect)").
			Judge(float64(pm.excess)))
	}
	return cs, notes
}

// removalChecks judge the removal during the loss by the ejection rule: whether every
// instance went, and when the first went and when none was listed.
func (s *nacosStorm) removalChecks(st string, pm phaseMeasure) []report.Check {
	cs := []report.Check{s.removedAll(st, pm.loss).JudgeText(report.B2F(pm.emptyAt >= 0), fmt.Sprintf("fewest listed %d", pm.fewest))}
	if pm.firstGone >= 0 {
		cs = append(cs, report.Band(st+": first instance removed, after the loss began", stormNoRemovalBelow().Seconds(), (ejectBy()+pushDelay).Seconds(), " s").Digits(2).
			From(fmt.Sprintf("[%s − %s silent before + %s probe − %s, %s + %s + %s + %s + the %s push delay]: no connection is probed before it was %s silent, "+
				"and the first to be is probed at the ejector's next run", keepAliveTime, 2*clientKeepAlive, ejectProbe, lowSlack, keepAliveTime, ejectEvery,
				ejectProbe, ruleSlack, pushDelay, keepAliveTime)).Judge(pm.firstGone.Seconds()))
	}
	if pm.emptyAt >= 0 {
		cs = append(cs, report.Band(st+": listed no instance, after the loss began", stormNoRemovalBelow().Seconds(), emptyListedBy().Seconds(), " s").Digits(2).
			From(fmt.Sprintf("between the earliest removal of an instance (%s: %s silent, at most %s of it before the loss, + the %s probe, − %s) and the latest (%s) "+
				"+ the %s push delay after which the answered list is refreshed (ServiceStorage)",
				stormNoRemovalBelow(), keepAliveTime, 2*clientKeepAlive, ejectProbe, lowSlack, emptyBy(), pushDelay)).Judge(pm.emptyAt.Seconds()))
	}
	return cs
}

// removedAll is the check of whether the server removed every instance
// during a loss of loss (the ejection rule, as in nacos-incident).
func (s *nacosStorm) removedAll(st string, loss time.Duration) report.Expect {
	lo, hi := ruleBand(loss, stormNoRemovalBelow(), emptyBy())
	return yesNo(st+": removed every instance during the loss (listed none)", "removed every instance", "kept an instance", lo, hi).
		From(fmt.Sprintf("none goes below %s (an instance's client looks every %s and skips the look right after its registration, so it is silent "+
			"at most twice that when the loss begins %s after the server listed every instance); every one goes above %s "+
			"(%s silent (RuntimeConnectionEjector.KEEP_ALIVE_TIME), a run busy with others' probes %s, the next %s later, its own %s probe "+
			"(NacosRuntimeConnectionEjector), + %s); the loss was %.2f s",
			stormNoRemovalBelow(), clientKeepAlive, s.FaultAt, emptyBy(), keepAliveTime, ejectProbe, ejectEvery, ejectProbe, ruleSlack, loss.Seconds())).
		Says(report.SaysYes("when the network came back, hundreds of pods re-registered at once (the registry had dropped them)")).
		Spread(fmt.Sprintf("a loss between %s and %s removes every instance or not by each connection's silence when the loss began and the "+
			"ejector's phase: the article's removal is one of the outcomes the rule allows", stormNoRemovalBelow(), emptyBy())).
		Because(fmt.Sprintf("Nacos 3 over gRPC removes an instance only once its connection was silent %s and missed the %s probe: a loss shorter "+
			"than %s removes none, so nothing re-registers (raise --loss above %s)", keepAliveTime, ejectProbe, stormNoRemovalBelow()+lowSlack, emptyBy()))
}

// relisted judges when the server listed every instance again, from the
// phase's first heal: no sooner than its last link's heal, no later than
// relistBy after it.
func (s *nacosStorm) relisted(st string, pm phaseMeasure) report.Check {
	hi := pm.spread + relistBy()
	e := report.Band(st+": every instance listed again, after the first heal", pm.spread.Seconds(), hi.Seconds(), " s").Digits(2).
		From(fmt.Sprintf("[the last link's heal (%.2f s after the first), + %s: the SDK's reconnect sleep ≤ %s (min(turns, 50) × 100 ms, "+
			"RpcClient.reconnect), a server check ≤ %s (DEFAULT_TIMEOUT_MILLS), the setup's %s (GrpcClient.sendConnectionSetupRequest), the redo's "+
			"RegisterInstance (ConnectionEventListener.OnConnected), the %s push delay (ServiceStorage), + %s]",
			pm.spread.Seconds(), relistBy(), reconnectSleep, serverCheckTimeout, sdkSetupSleep, pushDelay, ruleSlack))
	if pm.relist < 0 {
		rest := pm.p.End - pm.p.firstHeal()
		return e.JudgeText(rest.Seconds()+1, fmt.Sprintf("never (%.2f s observed)", rest.Seconds()))
	}
	return e.Judge(pm.relist.Seconds())
}

// peakCheck judges the jitter's peak re-registration rate against the
// immediate heal's.
func (s *nacosStorm) peakCheck(m stormMeasure) report.Check {
	imm, jit := m.phases[stormImmediate], m.phases[stormJitter]
	return report.AtMost(fmt.Sprintf("jitter: peak re-registrations per %s ≤ immediate's", m.data.SamplePeriod), float64(imm.peak), "").
		From(fmt.Sprintf("the jitter only delays each link's heal, uniform in [0, %s): the instances' reconnects, each its SDK's own back-off after its heal, "+
			"spread over the delays as well, so no bin of the server's list gains more than at an immediate heal (%d there; the one band here taken "+
			"from a measured figure, the other phase's)", m.data.Spread, imm.peak)).
		Says(report.Says("jittered back-off spreads the re-registrations and spares the recovering server")).
		JudgeText(float64(jit.peak), fmt.Sprintf("%d (immediate %d)", jit.peak, imm.peak))
}

// phaseMetrics are one phase's figures, prefixed with its strategy.
func (s *nacosStorm) phaseMetrics(mt report.Metrics, st string, pm phaseMeasure) {
	p := st + "."
	mt[p+"server_start_s"], mt[p+"loss_s"], mt[p+"heal_spread_s"] = pm.p.ServerStart.Seconds(), pm.loss.Seconds(), pm.spread.Seconds()
	mt[p+"register_p50_s"], mt[p+"register_max_s"], mt[p+"register_failed"] = pm.regP50.Seconds(), pm.regMax.Seconds(), float64(pm.regFailed)
	mt[p+"fewest_listed"], mt[p+"empty_at_s"], mt[p+"first_removed_s"] = float64(pm.fewest), secondsOrNaN(pm.emptyAt), secondsOrNaN(pm.firstGone)
	mt[p+"relisted_after_heal_s"] = secondsOrNaN(pm.relist)
	mt[p+"peak_per_bin"], mt[p+"peak_at_s"] = float64(pm.peak), pm.peakAt.Seconds()
	mt[p+"ejections"], mt[p+"disconnects"] = float64(pm.ejections), float64(pm.disconnects)
	mt[p+"ready_fails_after_heal"], mt[p+"list_fails_after_heal"] = float64(pm.readyFails), float64(pm.listFails)
	mt[p+"cpu_loss_s"], mt[p+"cpu_storm_s"], mt[p+"cpu_phase_s"] = pm.cpuLoss.Seconds(), pm.cpuStorm.Seconds(), pm.cpuPhase.Seconds()
	mt[p+"cpu_peak_cores"] = pm.cpuPeak
	mt[p+"rss_fault_mib"], mt[p+"rss_max_mib"] = float64(pm.rssFault>>20), float64(pm.rssMax>>20)
}
