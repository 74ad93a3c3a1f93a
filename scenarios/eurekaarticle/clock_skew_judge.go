package eurekaarticle

import (
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// skewOutcome is what one cluster went through after the step.
type skewOutcome struct {
	c       skewCase
	stepAt  time.Duration
	stepped bool
	// first is the stepped server's first eviction run after the step.
	first    eurekamodel.EvictionRun
	hasFirst bool
	// falseEvict counts its evictions after the step (every worker is alive);
	// peerLoss the evictions and cancels on the peers after it.
	falseEvict, peerLoss int
	// backMax is the longest time from an eviction to the worker's next
	// register on the stepped server (NaN: one never came back, or none evicted).
	backMax float64
}

// skewMeasure is what a clock-skew run measured.
type skewMeasure struct {
	data skewData
	outs []skewOutcome
}

// measure fills the measurement: each cluster's step is the clock-step
// event whose target is its stepped server.
func (s *clockSkew) measure(h *history.History) (skewMeasure, error) {
	var m skewMeasure
	if err := h.DataInto(&m.data); err != nil {
		return m, err
	}
	steps := h.Events.All(eureka.EventStepClock, history.Inject)
	for _, c := range m.data.Cases {
		o := skewOutcome{c: c}
		for _, e := range steps {
			if len(e.Targets) > 0 && e.Targets[0] == c.Server {
				o.stepAt, o.stepped = m.data.Clock.OfReal(e.At), true
				break
			}
		}
		if o.stepped {
			outcomeOfSkew(&o)
		}
		m.outs = append(m.outs, o)
	}
	return m, nil
}

// outcomeOfSkew follows the stepped server and its peers after the step.
func outcomeOfSkew(o *skewOutcome) {
	evictedAt := map[string]time.Duration{}
	for _, run := range o.c.Skewed.Evictions {
		if run.At <= o.stepAt {
			continue
		}
		if !o.hasFirst {
			o.first, o.hasFirst = run, true
		}
		o.falseEvict += len(run.Evicted)
		for _, id := range run.Evicted {
			evictedAt[id] = run.At
		}
	}
	for _, h := range o.c.Peers {
		for _, e := range h.Events {
			if e.At > o.stepAt && (e.Kind == eurekamodel.EventEvict || e.Kind == eurekamodel.EventCancel) {
				o.peerLoss++
			}
		}
	}
	o.backMax = backWithin(o.c.Skewed, evictedAt)
}

// backWithin returns the longest time from an eviction to the next register
// of the same instance on that server (NaN if one never came back, or if
// nothing was evicted).
func backWithin(h eurekamodel.History, evictedAt map[string]time.Duration) float64 {
	if len(evictedAt) == 0 {
		return math.NaN()
	}
	worst := 0.0
	for id, at := range evictedAt {
		back := math.NaN()
		for _, e := range h.Events {
			if e.Kind == eurekamodel.EventRegister && e.ID == id && e.At >= at {
				back = (e.At - at).Seconds()
				break
			}
		}
		if math.IsNaN(back) {
			return math.NaN()
		}
		worst = math.Max(worst, back)
	}
	return worst
}

// metricPrefix is "on." / "off." for --lease-bug's rule, "other_lease.on." … for the other.
func metricPrefix(c skewCase) string {
	if c.Primary {
		return onOff(c.SelfPreservation) + "."
	}
	return "other_lease." + onOff(c.SelfPreservation) + "."
}

// Judge turns the recorded run into the result (pure).
func (s *clockSkew) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, err := s.measure(h)
	if err != nil || len(m.outs) == 0 {
		why := "no cluster was recorded"
		if err != nil {
			why = err.Error()
		}
		res.AddCheck(report.Yes("clocks stepped", "yes", "no").Invalid(why))
		return res
	}
	for _, o := range m.outs {
		res.AddCheck(s.caseChecks(res.Metrics, o)...)
	}
	res.AddCheck(s.pairChecks(m)...)
	res.AddTable(s.table(m))
	s.conclude(res, m)
	return res
}

// predicted returns the false-eviction band of a case's lease rule.
func (s *clockSkew) predicted(c skewCase) (lo, hi int) {
	cfg := s.eu.config()
	cfg.LeaseBug = c.LeaseBug
	return eurekamodel.PredictFalseEvictions(cfg, s.Skew, s.Lead, s.eu.Workers)
}

func (s *clockSkew) caseChecks(mt report.Metrics, o skewOutcome) []report.Check {
	p, label := metricPrefix(o.c), o.c.Label
	lo, hi := s.predicted(o.c)
	k := eurekamodel.LeaseFactor(o.c.LeaseBug)
	falseEv := report.Band(label+": false evictions on s1", float64(lo), float64(hi), "").
		From(fmt.Sprintf("Lease.isExpired after a +%s step: none if ≤ %d × 90 s − 30 s, every stale lease (capped per run) if > %d × 90 s",
			eurekamodel.FormatModel(s.Skew), k, k)).
		Says(report.Says("clock skew causes premature expiry"))
	peers := report.Exactly(label+": evictions and cancels on the peers", 0, "").From("evictions are not replicated; the peers' clocks did not move")
	sp := spExpect(label)
	why := ""
	switch {
	case !o.stepped:
		why = "the clock of " + o.c.Server + " was not stepped"
	case !o.hasFirst:
		why = "no eviction run of " + o.c.Server + " after the step"
	}
	if why != "" {
		cs := []report.Check{falseEv.Invalid(why), peers.Invalid(why)}
		if o.c.SelfPreservation {
			cs = append(cs, sp.Invalid(why))
		}
		return cs
	}
	mt[p+"false_evictions"], mt[p+"peer_evictions"], mt[p+"back_s.max"] = float64(o.falseEvict), float64(o.peerLoss), o.backMax
	cs := []report.Check{falseEv.Judge(float64(o.falseEvict)), peers.Judge(float64(o.peerLoss))}
	if o.c.SelfPreservation {
		cs = append(cs, judgeEngaged(sp, o.first))
	}
	if o.falseEvict > 0 {
		cs = append(cs, report.Band(label+": evicted workers back on s1 within", 0, (s.eu.config().RenewInterval+2*time.Second).Seconds(), " s").
			Digits(1).From("next heartbeat (≤ renew interval) gets 404 and re-registers, or a peer's replicated heartbeat does; +2 s").
			Judge(o.backMax))
	}
	return cs
}

// spExpect is the self-preservation check of a cluster: the article's
// "false self-preservation" against the source's minute buckets.
func spExpect(label string) report.Expect {
	return report.No(label+": self-preservation engaged at the run after the step", "engaged", "not engaged (no protection)").
		From("renewsLastMin counts per minute of the monotonic timer (MeasuredRate, java.util.Timer) and every worker keeps renewing").
		Says(report.SaysYes("clock skew causes false self-preservation")).
		Because("MeasuredRate's minute buckets follow the monotonic timer, not the stepped wall clock, so renewsLastMin keeps counting " +
			"every renewal and stays above the threshold: a step cannot engage self-preservation")
}

// judgeEngaged judges whether the run after the step refused to evict.
func judgeEngaged(sp report.Expect, run eurekamodel.EvictionRun) report.Check {
	word := "engaged"
	if run.Enabled {
		word = "not engaged"
	}
	return sp.JudgeText(report.B2F(!run.Enabled), fmt.Sprintf("%s (renewsLastMin %d / threshold %d)", word, run.RenewsLastMin, run.Threshold))
}

// pairChecks compare on and off with the same lease rule: without false
// protection they lose the same number.
func (s *clockSkew) pairChecks(m skewMeasure) []report.Check {
	var cs []report.Check
	for _, primary := range []bool{true, false} {
		var on, off *skewOutcome
		for i := range m.outs {
			o := &m.outs[i]
			if o.c.Primary != primary || !o.stepped || !o.hasFirst {
				continue
			}
			if o.c.SelfPreservation {
				on = o
			} else {
				off = o
			}
		}
		if on == nil || off == nil {
			continue
		}
		name := fmt.Sprintf("%s lease: false evictions with self-preservation on minus off", leaseLabel(on.c.LeaseBug))
		cs = append(cs, report.Exactly(name, 0, "").From("self-preservation does not engage, so it protects nobody").
			JudgeText(float64(on.falseEvict-off.falseEvict), fmt.Sprintf("%d − %d", on.falseEvict, off.falseEvict)))
	}
	return cs
}

func (s *clockSkew) table(m skewMeasure) report.Table {
	t := report.Table{Title: fmt.Sprintf("s1's wall clock steps +%s, %s before an eviction run; every worker alive and renewing",
		eurekamodel.FormatModel(s.Skew), eurekamodel.FormatModel(s.Lead)),
		Header: []string{"cluster", "lease rule", "self-preservation", "step at", "run after the step", "renewsLastMin / threshold", "eviction",
			"false evictions", "predicted", "peers' evictions", "evicted back on s1 within"}}
	for _, o := range m.outs {
		lo, hi := s.predicted(o.c)
		t.Rows = append(t.Rows, skewRow(o, lo, hi))
	}
	t.Notes = []string{"lease rule: 'bug' = Lease.renew() stores now + duration (a renewed lease lives 2 × 90 s), 'fixed' = the intended now",
		"predicted: from the lease rule (see 'experiments help clock-skew'); the cap is size − (int)(size × 0.85) per run",
		eurekamodel.WallNote(m.data.Clock.Factor, m.data.Duration)}
	return t
}

func skewRow(o skewOutcome, lo, hi int) []string {
	step, first, rate, state := "—", "—", "—", "—"
	if o.stepped {
		step = fmt.Sprintf("%.1f s", o.stepAt.Seconds())
	}
	if o.hasFirst {
		first = fmt.Sprintf("+%.1f s", (o.first.At - o.stepAt).Seconds())
		rate = fmt.Sprintf("%d / %d", o.first.RenewsLastMin, o.first.Threshold)
		state = "runs"
		if !o.first.Enabled {
			state = "refused"
		}
	}
	pred := fmt.Sprint(lo)
	if hi != lo {
		pred = fmt.Sprintf("%d–%d", lo, hi)
	}
	return []string{o.c.Label, leaseLabel(o.c.LeaseBug), onOff(o.c.SelfPreservation), step, first, rate, state,
		fmt.Sprint(o.falseEvict), pred, fmt.Sprint(o.peerLoss), secStr(o.backMax)}
}

func (s *clockSkew) conclude(res *report.Result, m skewMeasure) {
	var parts []string
	for _, o := range m.outs {
		if o.c.Primary && o.c.SelfPreservation && o.hasFirst {
			res.Conclude(fmt.Sprintf("At the first eviction run after the step, s1 counted %d renewals in its last minute against a threshold of %d: the minute buckets follow the monotonic timer, not the stepped wall clock, so self-preservation did not engage — the article's false self-preservation does not happen in the source's rules.",
				o.first.RenewsLastMin, o.first.Threshold))
		}
		parts = append(parts, fmt.Sprintf("%s lease, self-preservation %s: %d", leaseLabel(o.c.LeaseBug), onOff(o.c.SelfPreservation), o.falseEvict))
	}
	res.Conclude(fmt.Sprintf("False evictions on s1 after a +%s step — %s.", eurekamodel.FormatModel(s.Skew), strings.Join(parts, "; ")))
	cfg := s.eu.config()
	res.Conclude(fmt.Sprintf("With the source's renew bug a renewed lease lives 2 × %s, so a step up to %s evicts nobody; with the intended expiry any step over %s makes every lease not renewed since the step look expired, and only the cap (%d per run of %d) limits the loss — on and off alike.",
		eurekamodel.FormatModel(cfg.LeaseDuration), eurekamodel.FormatModel(2*cfg.LeaseDuration-cfg.RenewInterval), eurekamodel.FormatModel(cfg.LeaseDuration),
		eurekamodel.EvictionLimit(s.eu.Workers, cfg.RenewalPercent), s.eu.Workers))
	res.Conclude("Evictions are not replicated, so the peers kept every worker; each evicted worker came back on s1 at its next heartbeat (404, re-register) or through a peer's replicated heartbeat (404, register).")
}
