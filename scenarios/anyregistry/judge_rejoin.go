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
	b, ok := r.removesSilent(w.step.HowOf(), w.to-w.from)
	if !ok {
		r.res.Conclude(fmt.Sprintf("The registry listed no instance while it was unreachable: %v (%s has no rule for it: not judged).", emptied, r.reg.Name()))
		return
	}
	e := report.Yes("the registry listed no instance while it was unreachable", "listed none", "kept instances").About(SubjectRegistry).From(b.Basis)
	e.Lo, e.Hi = b.Lo, b.Hi
	switch {
	case eitherWay(b) && seen:
		r.res.Conclude(fmt.Sprintf("The registry %s while it was unreachable (the rule allows either: %s; reported, not judged).", listedWord(emptied), b.Basis))
	case !seen:
		r.res.AddCheck(e.Invalid("no sample of the registry's list was answered while it was unreachable"))
	default:
		r.res.AddCheck(e.JudgeBool(emptied))
	}
	switch {
	case !w.healed:
	case r.rejoined(w) > 0 || (!r.recordsRegistrations() && r.removedAlive(w)):
		r.rejoinChecks(w)
	case r.recordsRegistrations():
		// nothing came back: say so, so that a rejoin experiment's cell
		// cannot read as a storm absorbed
		r.res.Metrics["rejoin.registrations"] = 0
		r.res.Conclude("No instance registered again after the registry returned: every registration outlived the outage, " +
			"so there was no rejoin to judge.")
	case seen:
		// a world that records no registration: its list never fell below
		// the live instances, so none lost its registration
		r.res.Metrics["rejoin.registrations"] = 0
		r.res.Conclude("The registry listed every live instance throughout the outage: none lost its registration or had to " +
			"register again, so there was no rejoin to judge.")
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

// removedAlive reports whether an answered sample of the registry's list
// in w counted fewer instances than were alive at its heal: the registry
// removed live ones, which then have to come back.
func (r *run) removedAlive(w window) bool {
	alive, _ := r.aliveAt(w.to)
	for _, op := range r.h.Ops {
		if op.Kind == history.OpListed && op.Outcome == history.OK && op.Scheduled >= w.from && op.Scheduled < w.to && op.Count < alive {
			return true
		}
	}
	return false
}

// recordsRegistrations reports whether the world recorded its instances'
// registrations (OpRegister); some do not (a client that registers again
// inside its own reconnect), and their return is read from the registry's
// list instead.
func (r *run) recordsRegistrations() bool {
	for _, op := range r.h.Ops {
		if op.Kind == history.OpRegister {
			return true
		}
	}
	return false
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
	bound, why, ok := r.relistedBound(n, r.x.Instances.Spread.D())
	if !ok {
		r.res.Conclude(fmt.Sprintf("%s has no rule for how soon the instances are listed again: not judged.", r.reg.Name()))
		return
	}
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
	r.peakCheck(w)
}

// listMerger is a world's rule that its answered list takes in every
// change within a span as one (a server's push task).
type listMerger interface {
	ListMerge() (time.Duration, string)
}

// peakCheck judges the busiest moment of the instances' return against
// what the way they come back (at once, or spread) allows: per 100 ms of
// recorded registrations, or — for a world that records none — per change
// of the registry's list, whose span the world's rules give.
func (r *run) peakCheck(w window) {
	span, over, basis, ok := r.rejoinWindow(w.step.HowOf(), r.x.Instances.Spread.D())
	if !ok {
		r.res.Conclude(fmt.Sprintf("%s has no rule for how the instances register again: their peak is not judged.", r.reg.Name()))
		return
	}
	name, bucket := "re-registrations in the busiest 100 ms after the registry returned", rig.ListedEvery
	c, what := r.peakRejoins(w.to, span), "registrations"
	if !r.recordsRegistrations() {
		c, what = r.peakListedGains(w.to, span), "instances the registry's list gained (read every 100 ms: the world records no registration)"
		if m, ok := r.rules.(listMerger); ok {
			d, why := m.ListMerge()
			name, bucket, basis = "re-registrations in the busiest change of the registry's list after it returned", max(bucket, d), basis+"; "+why
		}
	}
	lo, hi := peakBand(c.n, span, over, bucket)
	r.res.Metrics["rejoin.registrations"], r.res.Metrics["rejoin.peak_per_100ms"] = float64(c.n), float64(c.peak)
	r.res.AddCheck(report.Band(name, lo, hi, "").About(SubjectRegistry).
		From(fmt.Sprintf("%s: %d %s within %s, none likelier than %s in %s (0: at once): at least %s (pigeonhole), at most the binomial's 1 − 10⁻⁴ quantile",
			basis, c.n, what, span, bucket, over, report.Num(lo))).
		JudgeText(float64(c.peak), fmt.Sprintf("%d of %d", c.peak, c.n)))
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

// rejoinCount is how many came back after a heal and the most in one
// 100 ms bucket.
type rejoinCount struct{ n, peak int }

// add counts k more in the bucket of t after heal.
func (c *rejoinCount) add(buckets map[int]int, heal, t time.Duration, k int) {
	b := int((t - heal) / rig.ListedEvery)
	buckets[b] += k
	c.n += k
	c.peak = max(c.peak, buckets[b])
}

// peakRejoins counts the registrations that ended within span (+ a
// registration's deadline) of the heal and the most in one 100 ms bucket.
func (r *run) peakRejoins(heal, span time.Duration) rejoinCount {
	var c rejoinCount
	buckets := map[int]int{}
	for _, op := range r.registrations() {
		if op.End >= heal && op.End <= heal+span+rig.CallTimeout*2 {
			c.add(buckets, heal, op.End, 1)
		}
	}
	return c
}

// peakListedGains counts, for a world that records no registration, the
// instances the registry's list gained between its answered readings
// within span (+ a registration's deadline) of the heal, each gain in the
// bucket of the reading that saw it, and the most in one bucket.
func (r *run) peakListedGains(heal, span time.Duration) rejoinCount {
	var c rejoinCount
	buckets := map[int]int{}
	prev := -1
	for _, op := range r.h.Ops {
		if op.Kind != history.OpListed || op.Outcome != history.OK || op.Scheduled > heal+span+rig.CallTimeout*2 {
			continue
		}
		if op.Scheduled >= heal && prev >= 0 && op.Count > prev {
			c.add(buckets, heal, op.Scheduled, op.Count-prev)
		}
		prev = op.Count
	}
	return c
}

// peakBand bounds the busiest bucket of k registrations spread over span,
// none likelier than one bucket in over: at least k over the buckets of
// span (+1 for a registration's own duration), at most the binomial
// quantile taken at rejoinTail over every bucket.
func peakBand(k int, span, over, bucket time.Duration) (lo, hi float64) {
	buckets := math.Ceil(span.Seconds()/bucket.Seconds()) + 1
	lo = math.Ceil(float64(k) / buckets)
	p := 1.0 // at once: all may end in one bucket
	if over > 0 {
		p = math.Min(1, bucket.Seconds()/over.Seconds()) // an end time is no denser than a start time
	}
	b := distuv.Binomial{N: float64(k), P: p}
	for hi = lo; hi < float64(k) && b.CDF(hi) < 1-rejoinTail/buckets; hi++ {
	}
	return lo, hi
}
