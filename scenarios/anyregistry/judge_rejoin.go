package anyregistry

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// rejoinTail is the chance, per run, that the peak band excludes a peak
// the rule allows.
const rejoinTail = 1e-4

// registryChecks judge what the registry itself did while unreachable
// (did it remove the live instances?) and, once it returned, how the
// instances that lost their registration came back.
func (r *run) registryChecks(w window) {
	emptied, seen := r.emptiedWithin(w.from, w.to)
	b := r.rules.RemovesSilent(w.step.HowOf(), w.to-w.from)
	e := report.Yes("the registry listed no instance while it was unreachable", "listed none", "kept instances").About(SubjectRegistry).From(b.Basis)
	e.Lo, e.Hi = b.Lo, b.Hi
	if !seen {
		r.res.AddCheck(e.Invalid("no sample of the registry's list was answered while it was unreachable"))
	} else {
		r.res.AddCheck(e.JudgeBool(emptied))
	}
	if w.healed && r.rejoined(w) > 0 {
		r.rejoinChecks(w)
	}
}

// emptiedWithin reports whether an answered sample of the registry's list
// in [from, to) counted no instance, and whether any was answered.
func (r *run) emptiedWithin(from, to time.Duration) (emptied, seen bool) {
	for _, op := range r.h.Ops {
		if op.Kind != history.OpListed || op.Outcome != history.OK || op.Scheduled < from || op.Scheduled >= to {
			continue
		}
		seen = true
		emptied = emptied || op.Count == 0
	}
	return emptied, seen
}

// rejoined counts the registrations made after the registry returned.
func (r *run) rejoined(w window) int {
	n := 0
	for _, op := range r.registrations() {
		if op.End >= w.to {
			n++
		}
	}
	return n
}

// registrations are the instances' successful registrations.
func (r *run) registrations() []history.Op {
	var out []history.Op
	for _, op := range r.h.Ops {
		if op.Kind == history.OpRegister && op.Outcome == history.OK {
			out = append(out, op)
		}
	}
	return out
}

// rejoinChecks judge the instances' return: every one listed again within
// the world's bound, and the peak of registrations per 100 ms within what
// the way they come back (at once, or spread) allows.
func (r *run) rejoinChecks(w window) {
	n, crashed := r.aliveAt(w.to)
	bound, why := r.rules.Relisted(n, r.x.Instances.Spread.D())
	if crashed > 0 {
		why += fmt.Sprintf("; %d of %d instances alive at the heal (%d crashed by a crash-instance step: they never come back)", n, r.x.Instances.Count, crashed)
	}
	e := report.Band("every instance listed again after the registry returned", 0, bound.Seconds(), " s").Digits(2).About(SubjectRegistry).From(why)
	if n == 0 {
		r.res.Conclude("No instance was alive when the registry returned: none to list again (not judged).")
	} else if at, ok := r.relisted(w.to, n); ok {
		r.res.AddCheck(e.Judge(at.Seconds()))
	} else {
		r.res.AddCheck(e.JudgeText(math.NaN(), "never within the run"))
	}
	span, over, basis := r.rules.RejoinWindow(w.step.HowOf(), r.x.Instances.Spread.D())
	k, peak := r.peakRejoins(w.to, span)
	lo, hi := peakBand(k, span, over)
	r.res.Metrics["rejoin.registrations"], r.res.Metrics["rejoin.peak_per_100ms"] = float64(k), float64(peak)
	r.res.AddCheck(report.Band("re-registrations in the busiest 100 ms after the registry returned", lo, hi, "").About(SubjectRegistry).
		From(fmt.Sprintf("%s: %d registrations within %s, none likelier than 100 ms in %s (0: at once): at least %s (pigeonhole), at most the binomial's 1 − 10⁻⁴ quantile",
			basis, k, span, over, report.Num(lo))).
		JudgeText(float64(peak), fmt.Sprintf("%d of %d", peak, k)))
}

// aliveAt returns how many instances were alive at t: the experiment's
// count minus the distinct instances a crash-instance step crashed (a
// recorded injection without error) before t, and how many those were.
func (r *run) aliveAt(t time.Duration) (alive, crashed int) {
	gone := map[string]bool{}
	for i, s := range r.x.Timeline {
		if s.Fault != experiment.CrashInstance {
			continue
		}
		for _, e := range r.h.Events.OfOrigin(i + 1) {
			if e.Phase != history.Inject || e.Err != "" || e.At >= t {
				continue
			}
			if len(e.Targets) == 0 {
				gone[fmt.Sprintf("step %d", i+1)] = true
			}
			for _, id := range e.Targets {
				gone[id] = true
			}
		}
	}
	return max(0, r.x.Instances.Count-len(gone)), len(gone)
}

// relisted returns when, after heal, the registry first listed n instances.
func (r *run) relisted(heal time.Duration, n int) (time.Duration, bool) {
	for _, op := range r.h.Ops {
		if op.Kind == history.OpListed && op.Outcome == history.OK && op.Scheduled >= heal && op.Count >= n {
			return op.Scheduled - heal, true
		}
	}
	return 0, false
}

// peakRejoins counts the registrations that ended within span (+ a
// registration's deadline) of the heal and the most in one 100 ms bucket.
func (r *run) peakRejoins(heal, span time.Duration) (k, peak int) {
	buckets := map[int]int{}
	for _, op := range r.registrations() {
		if op.End < heal || op.End > heal+span+rig.CallTimeout*2 {
			continue
		}
		k++
		b := int((op.End - heal) / rig.ListedEvery)
		buckets[b]++
		peak = max(peak, buckets[b])
	}
	return k, peak
}

// peakBand bounds the busiest 100 ms of k registrations spread over span,
// none likelier than 100 ms in over: at least k over the buckets of span
// (+1 for a registration's own duration), at most the binomial quantile
// taken at rejoinTail over every bucket.
func peakBand(k int, span, over time.Duration) (lo, hi float64) {
	buckets := math.Ceil(span.Seconds()/rig.ListedEvery.Seconds()) + 1
	lo = math.Ceil(float64(k) / buckets)
	p := 1.0 // at once: all may end in one bucket
	if over > 0 {
		p = math.Min(1, rig.ListedEvery.Seconds()/over.Seconds()) // an end time is no denser than a start time
	}
	b := distuv.Binomial{N: float64(k), P: p}
	for hi = lo; hi < float64(k) && b.CDF(hi) < 1-rejoinTail/buckets; hi++ {
	}
	return lo, hi
}
