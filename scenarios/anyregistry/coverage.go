package anyregistry

import (
	"fmt"
	"time"

	"sdchaos/history"
)

// span is a stretch of the run's timeline, [from, to).
type span struct{ from, to time.Duration }

// coverage is what the checks of each caller judged: the spans a check
// covers, and the recovery spans after a heal that the world's rule bounds
// but no check judges (the caller may still fail there).
type coverage struct {
	judged, recovery map[string][]span
}

// judgedSpan records that a check of caller covers [from, to).
func (r *run) judgedSpan(caller string, from, to time.Duration) {
	r.cov.judged[caller] = append(r.cov.judged[caller], span{from, to})
}

// recoverySpan records [from, to) as caller's recovery after a heal.
func (r *run) recoverySpan(caller string, from, to time.Duration) {
	r.cov.recovery[caller] = append(r.cov.recovery[caller], span{from, to})
}

// in reports whether at lies in one of spans.
func in(spans []span, at time.Duration) bool {
	for _, s := range spans {
		if at >= s.from && at < s.to {
			return true
		}
	}
	return false
}

// unjudged counts caller's failed calls that no check judged: those in a
// recovery span, and the others.
func (r *run) unjudged(caller string) (recovering, other int) {
	for _, op := range r.h.Ops {
		if op.Caller != caller || op.Kind != history.OpCall || op.Outcome == history.OK || in(r.cov.judged[caller], op.Scheduled) {
			continue
		}
		if in(r.cov.recovery[caller], op.Scheduled) {
			recovering++
			continue
		}
		other++
	}
	return recovering, other
}

// concludeCoverage gives, for every caller, the failures no check judged
// as metrics (<caller>.fail_recovery, <caller>.fail_not_judged) and says
// them in the conclusion, so that no count stands for a verdict it did not
// get.
func (r *run) concludeCoverage() {
	for _, name := range callerNames(r.x) {
		rec, other := r.unjudged(name)
		r.res.Metrics[name+".fail_recovery"] = float64(rec)
		r.res.Metrics[name+".fail_not_judged"] = float64(other)
		if rec > 0 {
			r.res.Conclude(fmt.Sprintf("%s: %d failed calls fell in the recovery after a heal, which the world's rule bounds and no check judges.", name, rec))
		}
		if other > 0 {
			r.res.Conclude(fmt.Sprintf("%s: %d failed calls fell where no check judges (before the first fault, or where the world has no rule).", name, other))
		}
	}
}
