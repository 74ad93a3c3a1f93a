package nacosincident

import (
	"fmt"
	"time"

	"sdchaos/history"
	"sdchaos/worlds/nacos"
)

// stormData is what a nacos-storm run recorded, as the real pieces
// reported it: per phase (strategy) the server's list over time, its
// readiness, CPU time and RSS, its own logs, and the instances' first
// registrations. Times are offsets from the history's time zero (when the
// first phase's server listed every instance).
type stormData struct {
	// Instances is how many instances registered in each phase; Loss the
	// asked loss; Spread the jitter's heal spread.
	Instances int           `json:"instances"`
	Loss      time.Duration `json:"loss_ns"`
	Spread    time.Duration `json:"spread_ns"`
	// SamplePeriod and ProbePeriod are the periods of the list readings
	// and of the server probes.
	SamplePeriod time.Duration `json:"sample_period_ns"`
	ProbePeriod  time.Duration `json:"probe_period_ns"`
	// Phases holds the phases in the order they ran.
	Phases []nacosStormPhase `json:"phases"`
}

// nacosStormPhase is one strategy's phase on its own fresh server: the
// world's record (nacos.Record) of that phase, and its faults. In a
// history of the old format the faults were in the data (FaultAt, HealAt,
// HealErrs); now they are the timeline's events (phaseFaults reads them).
type nacosStormPhase struct {
	// Strategy is stormImmediate or stormJitter.
	Strategy string `json:"strategy"`
	// ServerStart is how long its server took to become ready.
	ServerStart time.Duration `json:"server_start_ns"`
	// Listed is when the server listed every instance; FaultAt when every
	// link was blackholed; HealAt when each link was healed (by
	// instance); End when the phase's observation ended.
	Listed  time.Duration   `json:"listed_ns"`
	FaultAt time.Duration   `json:"fault_at_ns,omitempty"`
	HealAt  []time.Duration `json:"heal_at_ns,omitempty"`
	End     time.Duration   `json:"end_ns"`
	// HealErrs counts the links whose heal failed.
	HealErrs int `json:"heal_errs,omitempty"`
	// Registrations are the instances' first registrations.
	Registrations []firstRegistration `json:"registrations"`
	// Server is the server's list read through its admin API; Probes its
	// readiness, CPU time and RSS; ServerLog its own logs' events.
	Server    []listSample  `json:"server"`
	Probes    []serverProbe `json:"probes"`
	ServerLog []serverEvent `json:"server_log"`
	// CPULimit describes the server's CPU quota ("" without); Throttled of ThrottlePeriods
	// periods its JVM wanted more than the quota (the cgroup's cpu.stat at the phase's end).
	CPULimit        string `json:"cpu_limit,omitempty"`
	Throttled       int64  `json:"throttled,omitempty"`
	ThrottlePeriods int64  `json:"throttle_periods,omitempty"`
}

// The world's records of a phase, as the judges read them.
type (
	// firstRegistration is an instance's first registration.
	firstRegistration = nacos.Registration
	// serverProbe is one reading of the server's readiness, CPU time and RSS.
	serverProbe = nacos.ProbeSample
)

// phaseOf is the phase strategy as its world recorded it.
func phaseOf(strategy string, r nacos.Record) nacosStormPhase {
	return nacosStormPhase{Strategy: strategy, ServerStart: r.ServerStart, Listed: r.Listed, End: r.End, Registrations: r.Registrations,
		Server: r.Server, Probes: r.Probes, ServerLog: r.ServerLog, CPULimit: r.CPULimit, Throttled: r.Throttled, ThrottlePeriods: r.ThrottlePeriods}
}

// phaseFaults fills a phase's faults from the timeline's events of its
// cluster (one blackhole per link, each healed at its own time): when the
// links were blackholed (the first), when each was healed, and how many
// heals failed. A phase of the old format keeps its own.
func phaseFaults(evs history.Events, p *nacosStormPhase) {
	if len(p.HealAt) > 0 {
		return
	}
	p.FaultAt = -1
	for _, e := range evs {
		if e.Kind != history.BlackholeLinks || e.Cluster != p.Strategy {
			continue
		}
		switch e.Phase {
		case history.Inject:
			if p.FaultAt < 0 || e.At < p.FaultAt {
				p.FaultAt = e.At
			}
		case history.Heal:
			p.HealAt = append(p.HealAt, e.At)
			p.HealErrs += b2i(e.Err != "")
		}
	}
}

// stormMarks are the marks a report draws for the storm: per phase the
// blackhole of every link and its heal at the last link's heal (the
// events a history of the old format holds; the timeline's per-link
// events, hundreds a phase, are in the history).
func stormMarks(phases []nacosStormPhase) history.Events {
	out := history.Events{}
	for _, p := range phases {
		if len(p.HealAt) == 0 {
			continue
		}
		label := fmt.Sprintf("%s: blackhole every instance's link (%d)", p.Strategy, len(p.HealAt))
		heal := fmt.Sprintf("healed: %s (the last link %.2f s after the first)", label, (p.lastHeal() - p.firstHeal()).Seconds())
		out = append(out,
			history.Event{At: p.FaultAt, Kind: history.BlackholeLinks, Phase: history.Inject, Targets: []string{"every instance"}, Label: label, Cluster: p.Strategy},
			history.Event{At: p.lastHeal(), Kind: history.BlackholeLinks, Phase: history.Heal, Targets: []string{"every instance"}, Label: heal, Cluster: p.Strategy})
	}
	return out
}

// describeHeals says, for progress, when a phase's links were blackholed
// and healed, from the timeline's events.
func describeHeals(evs history.Events, strategy string) string {
	p := nacosStormPhase{Strategy: strategy}
	phaseFaults(evs, &p)
	if len(p.HealAt) == 0 {
		return strategy + ": no link was healed"
	}
	return fmt.Sprintf("%s: every link (%d) blackholed at %.2f s, healed from %.2f s to %.2f s (%d heals failed)", strategy, len(p.HealAt),
		p.FaultAt.Seconds(), p.firstHeal().Seconds(), p.lastHeal().Seconds(), p.HealErrs)
}

// firstHeal and lastHeal are the phase's first and last link heal.
func (p nacosStormPhase) firstHeal() time.Duration { return extremeOf(p.HealAt, false) }
func (p nacosStormPhase) lastHeal() time.Duration  { return extremeOf(p.HealAt, true) }

func extremeOf(ds []time.Duration, most bool) time.Duration {
	if len(ds) == 0 {
		return -1
	}
	x := ds[0]
	for _, d := range ds[1:] {
		if (most && d > x) || (!most && d < x) {
			x = d
		}
	}
	return x
}
