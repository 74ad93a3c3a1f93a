package nacosarticle

import (
	"fmt"
	"math"
	"time"

	"sdchaos/cluster"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/storm"
)

// stormSide is one phase, measured: the registrants' side (phase), the
// registry's side (load) and the probes around it.
type stormSide struct {
	phase               stormPhase
	heal                history.Event
	load                storm.RegistryLoad
	listed, left, after int // key counts; −1 when the count failed
	// drained is the time from the loss until no key was left (or the heal).
	drained time.Duration
	window  time.Duration
}

// stormSize is both strategies at one size; why says why the size cannot
// be judged ("" when it can).
type stormSize struct {
	n        int
	imm, jit stormSide
	why      string
}

// measure fills one measurement per size from the history.
func (s *reregistrationStorm) measure(h *history.History) ([]stormSize, stormRecord, error) {
	var rec stormRecord
	if err := h.DataInto(&rec); err != nil {
		return nil, rec, err
	}
	var sizes []stormSize
	for _, n := range s.Sizes {
		sz := stormSize{n: n}
		var why1, why2 string
		sz.imm, why1 = side(h, rec, n, "immediate")
		sz.jit, why2 = side(h, rec, n, "jitter")
		sz.why = firstNonEmpty(why1, why2)
		sizes = append(sizes, sz)
	}
	return sizes, rec, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// side measures one phase; why is non-empty when it cannot be judged.
func side(h *history.History, rec stormRecord, n int, strategy string) (stormSide, string) {
	var sd stormSide
	found := false
	for _, p := range rec.Phases {
		if p.N == n && p.Strategy == strategy {
			sd.phase, found = p, true
		}
	}
	if !found {
		return sd, fmt.Sprintf("no %s phase was recorded at N = %d", strategy, n)
	}
	id := sd.phase.id()
	heal, ok := eventIn(h.Events, linkCutKinds, history.Heal, sd.phase.Start, sd.phase.End)
	if !ok {
		return sd, fmt.Sprintf("the %s phase at N = %d did not heal its links", strategy, n)
	}
	sd.heal, sd.window = heal, sd.phase.End-heal.At
	buckets := int(math.Ceil(float64(sd.window) / float64(bucketWidth)))
	sd.load = storm.MeasureRegistry(sd.phase.Members, rec.T0+int64(heal.At), bucketWidth, max(buckets, 1))
	sd.listed, sd.left, sd.after = countOp(h.Ops, opListed, id), countOp(h.Ops, opLeft, id), countOp(h.Ops, opKeysAfter, id)
	if loss, ok := eventIn(h.Events, linkCutKinds, history.Inject, sd.phase.Start, sd.phase.End); ok {
		if op, ok := opFor(h.Ops, opLeft, id); ok {
			sd.drained = op.End - loss.At
		}
	}
	switch {
	case sd.listed != n:
		return sd, fmt.Sprintf("the registry listed %s of %d keys at the %s loss: the steady renewals (%d per renewal period) already overloaded it, so there was no full fleet to re-register",
			count(sd.listed), n, strategy, n)
	case sd.left != 0:
		return sd, fmt.Sprintf("%s keys were still listed at the %s heal: the leases had not drained, so the storm did not start from an empty registry",
			count(sd.left), strategy)
	case len(sd.phase.Members) == 0 || sd.load.Members == 0:
		return sd, fmt.Sprintf("the members' metrics were not sampled in the %s phase at N = %d", strategy, n)
	case sd.load.Members < len(sd.phase.Members):
		return sd, fmt.Sprintf("only %d of %d members had samples at the heal (%s phase, N = %d)", sd.load.Members, len(sd.phase.Members), strategy, n)
	}
	return sd, ""
}

// eventIn returns the first event of one of kinds in phase within [from, to].
func eventIn(es history.Events, kinds []history.EventKind, phase history.Phase, from, to time.Duration) (history.Event, bool) {
	for _, kind := range kinds {
		for _, e := range es.All(kind, phase) {
			if e.At >= from && e.At <= to {
				return e, true
			}
		}
	}
	return history.Event{}, false
}

// opFor returns the op of caller name against target.
func opFor(ops []history.Op, name, target string) (history.Op, bool) {
	for _, op := range history.Filter(ops, name) {
		if op.Target == target {
			return op, true
		}
	}
	return history.Op{}, false
}

// countOp returns a key-count op's count, −1 when it failed or is missing.
func countOp(ops []history.Op, name, target string) int {
	if op, ok := opFor(ops, name, target); ok && op.Outcome == history.OK {
		return op.Count
	}
	return -1
}

// Judge turns the storm's history into the result (pure).
func (s *reregistrationStorm) Judge(h *history.History) *report.Result {
	if s.Shard.Sharded() {
		return s.shardResult(h)
	}
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	sizes, rec, err := s.measure(h)
	if err != nil {
		res.AddCheck(s.peakCheck(0).Invalid("the run recorded no storm data: " + err.Error()))
		return res
	}
	s.metrics(res.Metrics, sizes)
	res.AddTable(s.clientTable(sizes, rec.Settle))
	res.AddTable(s.registryTable(sizes))
	res.AddTable(s.bucketsTable(sizes[len(sizes)-1]))
	if t := costTable(sizes); t != nil {
		res.AddTable(*t)
	}
	for _, sz := range sizes {
		res.AddCheck(s.checks(sz)...)
		s.conclude(res, sz, rec.Settle)
	}
	if g, ok := s.samplingGate(sizes); ok {
		res.Gates = append(res.Gates, g)
	}
	return res
}

// peakRatioMax is the largest jitter ÷ immediate ratio of the registry's
// peak that still counts as lowered.
const peakRatioMax = 0.9

// predictedRatio is the ratio an unsaturated registry would show: the
// first attempts spread uniformly over --backoff-base against all at once.
func (s *reregistrationStorm) predictedRatio() float64 {
	return math.Min(1, bucketWidth.Seconds()/s.Base.Seconds())
}

func (s *reregistrationStorm) peakCheck(n int) report.Expect {
	return report.Band(fmt.Sprintf("@%d: registry's peak calls received per 100 ms, jitter ÷ immediate", n), 0, peakRatioMax, "").Digits(2).
		From(fmt.Sprintf("the remedy lowers the spike: ≤ %g (a ratio within 10 %% of 1 is no lowering); unsaturated, full jitter over --backoff-base %s predicts ≈ %.2f",
			peakRatioMax, s.Base, s.predictedRatio())).
		Says(report.Says("back-off with jitter avoids the re-registration spike"))
}

func (s *reregistrationStorm) checks(sz stormSize) []report.Check {
	imm, jit := sz.imm, sz.jit
	peak := s.peakCheck(sz.n)
	back := report.AtLeast(fmt.Sprintf("@%d: registrants back within --duration, jitter − immediate", sz.n), 0, "").
		From("the remedy brings the fleet back at least as well as a synchronized storm").
		Says(report.Says("back-off with jitter lets the registry recover"))
	failed := report.AtMost(fmt.Sprintf("@%d: failed registration calls (registrants' side), jitter − immediate", sz.n), 0, "").
		From("the remedy fails no more calls than a synchronized storm (registrants' side: errors and timeouts)").
		Says(report.Says("back-off with jitter avoids knocking the registry over"))
	regErr := report.AtMost(fmt.Sprintf("@%d: calls the registry answered with an error, jitter − immediate", sz.n), 0, "").
		From("the registry's own count (grpc_server_handled_total, code not OK, streams their clients closed left out): spread re-registrations leave it no more to fail").
		Says(report.Says("back-off with jitter spares the recovering registry"))
	up := report.Exactly(fmt.Sprintf("@%d: the registry fell over under the jitter storm (leader changes, members leaderless or lost, not serving)", sz.n), 0, "").
		From("spread re-registrations leave the members their heartbeats: no leader change, every member up with a leader, a count answered within 5 s after the phase").
		Says(report.Says("the storm knocked the recovering registry over; jitter is the remedy"))
	if sz.why != "" {
		return []report.Check{peak.Invalid(sz.why), back.Invalid(sz.why), failed.Invalid(sz.why), regErr.Invalid(sz.why), up.Invalid(sz.why)}
	}
	return []report.Check{s.judgePeak(peak, sz),
		back.JudgeText(float64(jit.phase.Back-imm.phase.Back), fmt.Sprintf("%d (immediate %d/%d, jitter %d/%d)",
			jit.phase.Back-imm.phase.Back, imm.phase.Back, sz.n, jit.phase.Back, sz.n)),
		failed.JudgeText(float64(jit.phase.Calls.Errors-imm.phase.Calls.Errors), fmt.Sprintf("%d (immediate %d, jitter %d)",
			jit.phase.Calls.Errors-imm.phase.Calls.Errors, imm.phase.Calls.Errors, jit.phase.Calls.Errors)),
		judgeRegErr(regErr, sz), judgeUp(up, sz)}
}

// judgePeak judges the registry's peak, which needs the calls it received
// (grpc_server_started_total) after the immediate heal.
func (s *reregistrationStorm) judgePeak(peak report.Expect, sz stormSize) report.Check {
	ip, jp := sz.imm.load.Peak(), sz.jit.load.Peak()
	switch why := lacking(sz, cluster.FamilyStarted); {
	case why != "":
		return peak.Invalid(why + ": the calls the registry received are not measured")
	case ip <= 0:
		return peak.Invalid(fmt.Sprintf("the members received nothing after the immediate heal at N = %d", sz.n))
	}
	return peak.JudgeText(jp/ip, fmt.Sprintf("%.2f (immediate %.0f, jitter %.0f)", jp/ip, ip, jp))
}

// judgeRegErr judges the registry's errors, which need the calls' ends
// (grpc_server_handled_total) typed (see cluster.Classify).
func judgeRegErr(regErr report.Expect, sz stormSize) report.Check {
	if why := errorsUntyped(sz); why != "" {
		return regErr.Invalid(why)
	}
	imm, jit := sz.imm.load.TotalErrors, sz.jit.load.TotalErrors
	return regErr.JudgeText(jit-imm, fmt.Sprintf("%.0f (immediate %.0f, jitter %.0f)", jit-imm, imm, jit))
}

// judgeUp judges whether the registry fell over under jitter, which needs
// the members' leader state.
func judgeUp(up report.Expect, sz stormSize) report.Check {
	if why := lacking(sz, cluster.FamilyHasLeader, cluster.FamilyLeaderChanges); why != "" {
		return up.Invalid(why + ": whether the registry kept its leader is not measured")
	}
	return up.JudgeText(falls(sz.jit), fellText(sz.jit))
}

// falls counts how the registry fell over in a phase (0: it stayed up).
func falls(sd stormSide) float64 {
	return sd.load.Falls() + report.B2F(sd.after < 0)
}

// fellText describes falls for the checks and tables.
func fellText(sd stormSide) string {
	how := sd.load.HowFell()
	if sd.after < 0 {
		if how != "" {
			how += "; "
		}
		how += "no answer to a count within 5 s after the phase"
	}
	if how == "" {
		return "stayed up"
	}
	return how
}
