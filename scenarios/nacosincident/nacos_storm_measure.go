package nacosincident

import (
	"fmt"
	"sort"
	"time"

	"sdchaos/history"
	"sdchaos/worlds/nacos"
)

// stormMeasure is what a nacos-storm run measured, per strategy.
type stormMeasure struct {
	data   stormData
	phases map[string]phaseMeasure
}

// phaseMeasure is what one phase measured, from the server's own answers
// and its process (times from the phase's fault unless said otherwise).
type phaseMeasure struct {
	p nacosStormPhase
	// loss is from the fault to the first heal; spread from the first
	// heal to the last.
	loss, spread time.Duration
	// listedBefore is the server's last reading before the fault;
	// unready the probes before the fault whose readiness failed.
	listedBefore, unready int
	// regFailed counts the failed first registrations; regP50, regMax
	// their durations' median and maximum.
	regFailed      int
	regP50, regMax time.Duration
	// fewest is the fewest listed during the loss; emptyAt the first
	// reading of none (−1: none).
	fewest  int
	emptyAt time.Duration
	// firstGone is the first reading of fewer than every instance during
	// the loss (−1: none).
	firstGone time.Duration
	// relist is the first reading of every instance at or after the
	// first heal, from the first heal (−1: never).
	relist time.Duration
	// peak is the most instances added to the list in one 100 ms bin
	// after the first heal; peakAt that bin's end, from the first heal.
	peak   int
	peakAt time.Duration
	// excess is the most instances listed beyond the links healed by
	// then, from the first heal on (when the server had listed none).
	excess int
	// readyFails and listFails count the failed readiness probes and
	// list readings from the first heal to the end.
	readyFails, listFails int
	// cpuLoss, cpuStorm and cpuPhase are the JVM's CPU time over the
	// loss, over stormWindow from the first heal, and over the phase.
	cpuLoss, cpuStorm, cpuPhase time.Duration
	// cpuPeak is the most CPU per second between two probes (cores).
	cpuPeak float64
	// rssFault and rssMax are the RSS at the fault and the most after it.
	rssFault, rssMax int64
	// ejections and disconnects count the server log's ejections and
	// disconnects during the loss.
	ejections, disconnects int
}

// measure fills the measurement; why is non-empty when the run cannot judge.
func (s *nacosStorm) measure(h *history.History) (m stormMeasure, why string) {
	if err := h.DataInto(&m.data); err != nil {
		return m, "the run recorded no Nacos storm data: " + err.Error()
	}
	m.phases = map[string]phaseMeasure{}
	for i := range m.data.Phases {
		phaseFaults(h.Events, &m.data.Phases[i])
	}
	for _, p := range m.data.Phases {
		if len(p.HealAt) != m.data.Instances {
			return m, fmt.Sprintf("%s: %d links healed of %d", p.Strategy, len(p.HealAt), m.data.Instances)
		}
		m.phases[p.Strategy] = measurePhase(p, m.data)
	}
	for _, st := range stormStrategies {
		if _, ok := m.phases[st]; !ok {
			return m, "no " + st + " phase was recorded"
		}
	}
	return m, ""
}

// measurePhase measures one phase.
func measurePhase(p nacosStormPhase, d stormData) phaseMeasure {
	first := p.firstHeal()
	pm := phaseMeasure{p: p, loss: first - p.FaultAt, spread: p.lastHeal() - first, listedBefore: -1,
		fewest: d.Instances, emptyAt: -1, firstGone: -1, relist: -1}
	pm.registrations()
	pm.list(d.Instances)
	pm.rate(d.SamplePeriod)
	pm.excess = excessListed(p, pm.emptyAt >= 0)
	pm.process(pm.spread) // the phase's own heals' span, as quotaUse's window: not the configured --spread
	for _, e := range p.ServerLog {
		if e.At >= p.FaultAt && e.At <= first+ruleSlack {
			pm.ejections += b2i(e.Kind == nacos.Eject)
			pm.disconnects += b2i(e.Kind == nacos.Disconnect)
		}
	}
	return pm
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// registrations reads the first registrations' outcomes and durations.
func (pm *phaseMeasure) registrations() {
	var ds []time.Duration
	for _, r := range pm.p.Registrations {
		if r.Err != "" {
			pm.regFailed++
			continue
		}
		ds = append(ds, r.End-r.Start)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	if len(ds) > 0 {
		pm.regP50, pm.regMax = ds[len(ds)/2], ds[len(ds)-1]
	}
}

// list reads the server's list: before the fault, during the loss, and
// from the first heal.
func (pm *phaseMeasure) list(n int) {
	first := pm.p.firstHeal()
	for _, smp := range pm.p.Server {
		switch {
		case smp.At < pm.p.FaultAt:
			if smp.Count >= 0 {
				pm.listedBefore = smp.Count
			}
		case smp.At < first:
			if smp.Count >= 0 {
				pm.fewest = min(pm.fewest, smp.Count)
			}
			if smp.Count >= 0 && smp.Count < n && pm.firstGone < 0 {
				pm.firstGone = smp.At - pm.p.FaultAt
			}
			if smp.Count == 0 && pm.emptyAt < 0 {
				pm.emptyAt = smp.At - pm.p.FaultAt
			}
		default:
			pm.listFails += b2i(smp.Count < 0 && smp.At < pm.p.End) // the reading the phase's end cut short is not the server's
			if pm.relist < 0 && smp.Count == n {
				pm.relist = smp.At - first
			}
		}
	}
}

// rate finds the most instances added to the list in one bin of the
// sample period after the first heal (the count at a bin's end is the
// last successful reading in it, carried over empty bins).
func (pm *phaseMeasure) rate(bin time.Duration) {
	first := pm.p.firstHeal()
	prev, edge := -1, first+bin
	for _, smp := range pm.p.Server {
		if smp.Count < 0 {
			continue
		}
		if smp.At < first {
			prev = smp.Count
			continue
		}
		for smp.At >= edge {
			edge += bin
		}
		if prev >= 0 && smp.Count-prev > pm.peak {
			pm.peak, pm.peakAt = smp.Count-prev, edge-first
		}
		prev = smp.Count
	}
}

// excessListed is the most instances the server listed beyond the links
// healed by then, from the first heal to the end: an instance the server
// removed re-registers only over its own healed link. 0 when the server
// never listed none (instances it kept are listed whatever the links).
func excessListed(p nacosStormPhase, emptied bool) int {
	if !emptied {
		return 0
	}
	heals := append([]time.Duration(nil), p.HealAt...)
	sort.Slice(heals, func(i, j int) bool { return heals[i] < heals[j] })
	most := 0
	for _, smp := range p.Server {
		if smp.At < heals[0] || smp.Count < 0 {
			continue
		}
		healed := sort.Search(len(heals), func(i int) bool { return heals[i] > smp.At })
		most = max(most, smp.Count-healed)
	}
	return most
}

// process reads the probes: readiness, CPU time and RSS.
func (pm *phaseMeasure) process(spread time.Duration) {
	first := pm.p.firstHeal()
	var prev *serverProbe
	for i := range pm.p.Probes {
		pr := &pm.p.Probes[i]
		switch {
		case pr.At < pm.p.FaultAt:
			pm.unready += b2i(pr.ReadyErr != "")
			pm.rssFault = pr.RSS
		default:
			pm.rssMax = max(pm.rssMax, pr.RSS)
			if pr.At >= first {
				pm.readyFails += b2i(pr.ReadyErr != "")
			}
		}
		if prev != nil && prev.CPU >= 0 && pr.CPU >= 0 && pr.CPUReadAt() > prev.CPUReadAt() {
			pm.cpuPeak = max(pm.cpuPeak, (pr.CPU-prev.CPU).Seconds()/(pr.CPUReadAt()-prev.CPUReadAt()).Seconds())
		}
		prev = pr
	}
	pm.cpuLoss = cpuBetween(pm.p.Probes, pm.p.FaultAt, first)
	pm.cpuStorm = cpuBetween(pm.p.Probes, first, first+stormWindow(spread))
	pm.cpuPhase = cpuBetween(pm.p.Probes, pm.p.Listed, pm.p.End)
}

// cpuBetween is the CPU time used between the last probe at or before from
// and the last at or before to (0 when either is missing).
func cpuBetween(ps []serverProbe, from, to time.Duration) time.Duration {
	a, b := time.Duration(-1), time.Duration(-1)
	for _, p := range ps {
		if p.CPU < 0 {
			continue
		}
		if p.At <= from || a < 0 {
			a = p.CPU
		}
		if p.At <= to {
			b = p.CPU
		}
	}
	if a < 0 || b < a {
		return 0
	}
	return b - a
}
