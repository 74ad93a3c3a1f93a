package anyregistry

import (
	"fmt"
	"time"

	"sdchaos/experiment"
)

// The world's rules, asked one question at a time: each accessor returns
// ok false when the world does not answer that question (it implements no
// such interface) or has no rule for the case; the caller then reports
// what it counted, not judged.

// refreshFails is the world's RefreshRule.
func (r *run) refreshFails(how experiment.How, refresh, timeout time.Duration) (lo, hi time.Duration, basis string, ok bool) {
	q, ok := r.rules.(experiment.RefreshRule)
	if !ok {
		return 0, 0, "", false
	}
	lo, hi, basis = q.RefreshFails(how, refresh, timeout)
	return lo, hi, basis, true
}

// clientWhileUnreachable is the world's ClientOutageRule.
func (r *run) clientWhileUnreachable(client string, how experiment.How, d time.Duration) (experiment.Band, bool) {
	if q, ok := r.rules.(experiment.ClientOutageRule); ok {
		return q.ClientWhileUnreachable(client, how, d)
	}
	return experiment.Band{}, false
}

// clientAfterCrash is the world's ClientCrashRule.
func (r *run) clientAfterCrash(client string, n int, rate float64, w time.Duration) (experiment.Band, bool) {
	if q, ok := r.rules.(experiment.ClientCrashRule); ok {
		return q.ClientAfterCrash(client, n, rate, w)
	}
	return experiment.Band{}, false
}

// recovery is the world's RecoveryRule.
func (r *run) recovery(c experiment.Caller, o experiment.Outage, refresh time.Duration) (time.Duration, string, bool) {
	q, ok := r.rules.(experiment.RecoveryRule)
	if !ok {
		return 0, "", false
	}
	d, why := q.Recovery(c, o, refresh)
	return d, why, true
}

// removesSilent is the world's SilentRemovalRule.
func (r *run) removesSilent(how experiment.How, d time.Duration) (experiment.Band, bool) {
	if q, ok := r.rules.(experiment.SilentRemovalRule); ok {
		return q.RemovesSilent(how, d), true
	}
	return experiment.Band{}, false
}

// memberServes is the world's MemberServesRule.
func (r *run) memberServes(f experiment.FaultKind, role experiment.Role, op experiment.ProbeOp, since time.Duration) (experiment.Band, bool) {
	if q, ok := r.rules.(experiment.MemberServesRule); ok {
		return q.MemberServes(f, role, op, since)
	}
	return experiment.Band{}, false
}

// relistedBound is the world's RelistRule.
func (r *run) relistedBound(n int, spread time.Duration) (time.Duration, string, bool) {
	q, ok := r.rules.(experiment.RelistRule)
	if !ok {
		return 0, "", false
	}
	d, why := q.Relisted(n, spread)
	return d, why, true
}

// rejoinWindow is the world's RejoinRule.
func (r *run) rejoinWindow(how experiment.How, spread time.Duration) (span, over time.Duration, basis string, ok bool) {
	q, ok := r.rules.(experiment.RejoinRule)
	if !ok {
		return 0, 0, "", false
	}
	span, over, basis = q.RejoinWindow(how, spread)
	return span, over, basis, true
}

// memberReads is the world's MemberReadsRule.
func (r *run) memberReads(f experiment.FaultKind) (experiment.Reads, string, bool) {
	q, ok := r.rules.(experiment.MemberReadsRule)
	if !ok {
		return "", "", false
	}
	reads, basis := q.MemberReads(f)
	return reads, basis, true
}

// memberRemoves is the world's MemberRemovesRule.
func (r *run) memberRemoves(f experiment.FaultKind, d time.Duration) (experiment.Band, bool) {
	if q, ok := r.rules.(experiment.MemberRemovesRule); ok {
		return q.MemberRemoves(f, d)
	}
	return experiment.Band{}, false
}

// notJudgedCallers says, for every caller, what it failed while w's fault
// held, where the world has no rule for what: counted, not judged.
func (r *run) notJudgedCallers(w window, what string) {
	for _, c := range r.x.Callers {
		n, failed := r.countOf(c.Name, w.from, w.to)
		r.res.Conclude(fmt.Sprintf("%s failed %d of %d calls while %s held (%s has no rule for %s: not judged).",
			c.Name, failed, n, w.step.Fault, r.reg.Name(), what))
	}
}

// eitherWay reports whether a yes/no band accepts both answers: such a
// band is no check (it cannot fail), so the judge reports the answer with
// the rule instead of judging it.
func eitherWay(b experiment.Band) bool { return b.Lo <= 0 && b.Hi >= 1 }

// listedWord says what the registry's list did, for a reported answer.
func listedWord(emptied bool) string {
	if emptied {
		return "listed no instance"
	}
	return "kept its instances"
}
