package anyregistry

import (
	"fmt"
	"math"
	"time"

	"sdchaos/caller"
	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// unreachableChecks judge every caller while the registry was unreachable
// (and after an instance crashed meanwhile), and after the heal.
func (r *run) unreachableChecks(w window) {
	crash, crashed := r.crashIn(w)
	end := w.to
	if crashed {
		end = crash
	}
	for _, c := range r.x.Callers {
		switch c.Kind {
		case experiment.PolicyCaller:
			r.policyDuringAs(c, w, end, w.step.HowOf())
		case experiment.RealClient:
			r.clientDuringAs(c, w, end, w.step.HowOf(), "the registry was unreachable")
		}
		if crashed {
			r.afterCrash(c, w.from, crash, w.to)
		} else if w.healed {
			r.afterHealAs(c, w, r.outage(w.step.HowOf(), w.to-w.from), "the registry returned")
		}
	}
	r.registryChecks(w)
}

// policyDuringAs judges a policy caller from the cut (made as how) until
// end (the heal, or a crash): keep fails nothing; clear fails from its
// first failed refresh.
func (r *run) policyDuringAs(c experiment.Caller, w window, end time.Duration, how experiment.How) {
	n, failed, _, _ := r.splitAt(c.Name, w.from, end, w.to)
	text := fmt.Sprintf("%d of %d", failed, n)
	if c.Policy == experiment.Keep {
		r.judgedSpan(c.Name, w.from, end)
		e := report.Exactly(c.Name+": failures while the registry was unreachable", 0, "").About(c.Name).
			From("a failed refresh keeps the old list and every instance lives: every call reaches a live instance")
		r.res.AddCheck(judgeCount(e, n, failed, text))
		return
	}
	lo, hi, basis, ok := r.refreshFails(how, rig.RefreshOf(c), rig.RefreshTimeout)
	if !ok {
		r.res.Conclude(fmt.Sprintf("%s failed %s calls while the registry was unreachable (%s has no rule for when a refresh fails: not judged).", c.Name, text, r.reg.Name()))
		return
	}
	if d := inFlightAt(r.h.Ops, c.Name+caller.RefreshSuffix, w.from); d > 0 {
		lo = max(0, lo-d)
		basis += fmt.Sprintf("; its refresh in flight at the cut began %s before it and fails that much sooner", d.Round(time.Millisecond))
	}
	send := time.Duration(float64(time.Second) / rig.RateOf(c))
	first := report.Band(c.Name+": first failure after the registry became unreachable", lo.Seconds(), (hi + send).Seconds(), " s").Digits(3).About(c.Name).
		From(basis + "; then its next send fails on the emptied list")
	r.judgedSpan(c.Name, w.from, end) // the first failure's bound, then the share failed from it
	op, ok := firstFail(r.h.Ops, c.Name, w.from, end)
	if !ok {
		r.res.AddCheck(first.JudgeText(math.NaN(), "never failed"))
		return
	}
	r.res.AddCheck(first.Judge((op.Scheduled - w.from).Seconds()))
	after, afterFail := r.countOf(c.Name, op.Scheduled, end)
	share := report.Band(c.Name+": failed share from its first failure until the registry returned", 100, 100, " %").About(c.Name).
		From("an empty list serves nothing until a refresh succeeds, and none does while the registry is unreachable")
	r.res.AddCheck(share.JudgeText(report.Pct(afterFail, after), fmt.Sprintf("%d of %d", afterFail, after)))
}

// clientDuringAs judges a real client from the cut (made as how) until
// end by its world's rule; while says what held ("the registry was
// unreachable").
func (r *run) clientDuringAs(c experiment.Caller, w window, end time.Duration, how experiment.How, while string) {
	n, failed, _, _ := r.splitAt(c.Name, w.from, end, w.to)
	name := c.Name + ": failed share while " + while
	b, ok := r.clientWhileUnreachable(c.Client, how, w.to-w.from)
	if !ok {
		r.res.Conclude(fmt.Sprintf("%s failed %d of %d calls while %s (%s has no rule for this client here: not judged).", c.Name, failed, n, while, r.reg.Name()))
		return
	}
	e := report.Band(name, b.Lo, b.Hi, " %").Digits(1).About(c.Name).From(b.Basis)
	r.judgedSpan(c.Name, w.from, end)
	if n == 0 {
		r.res.AddCheck(e.Invalid("the client recorded no call while " + while))
		return
	}
	r.res.AddCheck(e.JudgeText(report.Pct(failed, n), fmt.Sprintf("%d of %d", failed, n)))
}

// outage is what a heal ends for Recovery: the fault made as how, the
// instances cut off the registry for cut (0 when they reached it).
func (r *run) outage(how experiment.How, cut time.Duration) experiment.Outage {
	return experiment.Outage{How: how, Cut: cut, Spread: r.x.Instances.Spread.D()}
}

// afterHealAs judges a caller once its list is whole again after the heal
// of outage o.
func (r *run) afterHealAs(c experiment.Caller, w window, o experiment.Outage, after string) {
	if c.Kind == experiment.ExecClient {
		return
	}
	rec, why, ok := r.recovery(c, o, rig.RefreshOf(c))
	if !ok {
		n, failed := r.countOf(c.Name, w.to, w.until)
		r.res.Conclude(fmt.Sprintf("%s failed %d of %d calls after %s (%s has no rule for the recovery: not judged).", c.Name, failed, n, after, r.reg.Name()))
		return
	}
	from := w.to + rec
	r.recoverySpan(c.Name, w.to, min(from, w.until))
	if from >= w.until {
		// the experiment's length, not the run, leaves nothing to judge: no retry would (as afterMemberHeal)
		n, failed := r.countOf(c.Name, w.to, w.until)
		r.res.Conclude(fmt.Sprintf("%s failed %d of %d calls after %s (the world's recovery bound, %s, ends after the run or the next fault, %s after the heal: not judged).",
			c.Name, failed, n, after, rec.Round(time.Second), (w.until - w.to).Round(time.Second)))
		return
	}
	e := report.Exactly(fmt.Sprintf("%s: failures after %s (from %s after)", c.Name, after, rec.Round(time.Millisecond)), 0, "").About(c.Name).
		From(why + "; every instance lives")
	n, failed := r.countOf(c.Name, from, w.until)
	r.judgedSpan(c.Name, from, w.until)
	r.res.AddCheck(judgeCount(e, n, failed, fmt.Sprintf("%d of %d", failed, n)))
}

// judgeCount judges a count of failures, invalid when nothing was sent.
func judgeCount(e report.Expect, n, failed int, text string) report.Check {
	if n == 0 {
		return e.Invalid("no call was scheduled in the window")
	}
	return e.JudgeText(float64(failed), text)
}

// inFlightAt returns how long before at the refresh of name (a caller's
// refresh ops) that was still running at at, and then failed, began: the
// rules bound a refresh started at the cut, and one already in flight
// reaches its deadline that much sooner. 0 when none was.
func inFlightAt(ops []history.Op, name string, at time.Duration) time.Duration {
	var d time.Duration
	for _, op := range ops {
		if op.Caller == name && op.Outcome != history.OK && op.Start < at && op.End > at {
			d = max(d, at-op.Start)
		}
	}
	return d
}

// firstFail returns name's first failed call scheduled in [from, to).
func firstFail(ops []history.Op, name string, from, to time.Duration) (history.Op, bool) {
	var best history.Op
	found := false
	for _, op := range ops {
		if op.Caller != name || op.Outcome == history.OK || op.Scheduled < from || op.Scheduled >= to {
			continue
		}
		if !found || op.Scheduled < best.Scheduled {
			best, found = op, true
		}
	}
	return best, found
}
