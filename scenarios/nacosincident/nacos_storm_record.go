package nacosincident

import (
	"fmt"
	"time"

	"sdchaos/history"
	"sdchaos/nacosreal"
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

// nacosStormPhase is one strategy's phase on its own fresh server.
type nacosStormPhase struct {
	// Strategy is stormImmediate or stormJitter.
	Strategy string `json:"strategy"`
	// ServerStart is how long its server took to become ready.
	ServerStart time.Duration `json:"server_start_ns"`
	// Listed is when the server listed every instance; FaultAt when every
	// link was blackholed; HealAt when each link was healed (by
	// instance); End when the phase's observation ended.
	Listed  time.Duration   `json:"listed_ns"`
	FaultAt time.Duration   `json:"fault_at_ns"`
	HealAt  []time.Duration `json:"heal_at_ns"`
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
}

// firstRegistration is an instance's first registration: its call's span
// (the client's creation and RegisterInstance, with retries) and error.
type firstRegistration struct {
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
	Err   string        `json:"err,omitempty"`
}

// serverProbe is one reading of the server: its readiness endpoint's
// failure ("" when ready), the JVM's CPU time so far and its RSS (−1 when
// unread).
type serverProbe struct {
	At       time.Duration `json:"at_ns"`
	ReadyErr string        `json:"ready_err,omitempty"`
	CPU      time.Duration `json:"cpu_ns"`
	RSS      int64         `json:"rss"`
}

// nacosStormRecord turns one phase's result into its record, times from t0.
func nacosStormRecord(strategy string, start time.Duration, res nacosreal.StormResult, t0 time.Time) nacosStormPhase {
	off := func(t time.Time) time.Duration { return t.Sub(t0) }
	p := nacosStormPhase{Strategy: strategy, ServerStart: start, Listed: off(res.Listed), FaultAt: off(res.FaultAt), End: off(res.End),
		HealErrs: len(res.HealErrs)}
	for _, t := range res.HealAt {
		p.HealAt = append(p.HealAt, off(t))
	}
	for _, r := range res.Registrations {
		p.Registrations = append(p.Registrations, firstRegistration{Start: off(r.Start), End: off(r.End), Err: r.Err})
	}
	for _, s := range res.Server {
		p.Server = append(p.Server, listSample{At: off(s.At), Count: s.Count, Healthy: s.Healthy, Err: s.Err})
	}
	for _, pr := range res.Probes {
		p.Probes = append(p.Probes, serverProbe{At: off(pr.At), ReadyErr: pr.ReadyErr, CPU: pr.CPU, RSS: pr.RSS})
	}
	for _, e := range res.ServerLog {
		p.ServerLog = append(p.ServerLog, serverEvent{At: off(e.At), Kind: e.Kind, Size: e.Size, Detail: e.Detail})
	}
	return p
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

// nacosStormHistory is the run's history: per phase the blackhole of every
// link (inject at the fault, heal at its last link's heal, the phase's
// strategy as the event's cluster) and the data.
func nacosStormHistory(d stormData) (*history.History, error) {
	var h history.History
	for _, p := range d.Phases {
		if len(p.HealAt) == 0 {
			continue
		}
		label := fmt.Sprintf("%s: blackhole every instance's link (%d)", p.Strategy, len(p.HealAt))
		heal := fmt.Sprintf("healed: %s (the last link %.2f s after the first)", label, (p.lastHeal() - p.firstHeal()).Seconds())
		h.Events = append(h.Events,
			history.Event{At: p.FaultAt, Kind: history.BlackholeLinks, Phase: history.Inject, Targets: []string{"every instance"}, Label: label, Cluster: p.Strategy},
			history.Event{At: p.lastHeal(), Kind: history.BlackholeLinks, Phase: history.Heal, Targets: []string{"every instance"}, Label: heal, Cluster: p.Strategy})
		h.Timeline = max(h.Timeline, p.End)
	}
	if err := h.SetData(d); err != nil {
		return nil, err
	}
	return &h, nil
}
