package anyregistry

import (
	"fmt"
	"time"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/rig"
)

// memberHow is how a member fault looks to a client: a quorum loss kills
// members (their ports refuse, they restart at the heal); a member made
// unreachable loses every packet to and from its clients; a cut-off
// member is alive and holds what is sent to it.
func memberHow(f experiment.FaultKind) experiment.How {
	switch f {
	case experiment.QuorumLoss:
		return experiment.KillQuorum
	case experiment.MemberUnreachable:
		return experiment.Drop
	}
	return experiment.CutPeers
}

// memberListChecks judge what the registry listed (its OpListed samples)
// while a member fault held, by the world's MemberRemoves rule.
func (r *run) memberListChecks(w window) {
	b, ok := r.memberRemoves(w.step.Fault, w.to-w.from)
	emptied, seen := r.emptiedWithin(w.from, w.to)
	name := fmt.Sprintf("the registry listed no instance while %s held", w.step.Fault)
	if !ok {
		r.res.Conclude(fmt.Sprintf("%s: %v (%s has no rule for it: not judged).", name, emptied, r.reg.Name()))
		return
	}
	if eitherWay(b) && seen {
		r.res.Conclude(fmt.Sprintf("%s: %s (the rule allows either: %s; reported, not judged).", name, listedWord(emptied), b.Basis))
		return
	}
	e := report.Yes(name, "listed none", "kept instances").About(SubjectRegistry).From(b.Basis)
	e.Lo, e.Hi = b.Lo, b.Hi
	if !seen {
		r.res.AddCheck(e.Invalid("no sample of the registry's list was answered while the fault held"))
		return
	}
	r.res.AddCheck(e.JudgeBool(emptied))
}

// memberCallerChecks judge every caller while a member fault held, by how
// the world says its reads of the list fare (MemberReads), and after the
// heal.
func (r *run) memberCallerChecks(w window) {
	reads, basis, ok := r.memberReads(w.step.Fault)
	how := memberHow(w.step.Fault)
	if !ok {
		r.notJudgedCallers(w, "how the clients' reads fare during it")
		return
	}
	for _, c := range r.x.Callers {
		if c.Kind == experiment.ExecClient {
			continue
		}
		switch {
		case reads == experiment.ReadsFail && c.Kind == experiment.PolicyCaller:
			r.policyDuringAs(c, w, w.to, how)
		case reads == experiment.ReadsFail && c.Kind == experiment.RealClient:
			r.clientDuringAs(c, w, w.to, how, "the registry was unreachable")
		case reads == experiment.ReadsSome && c.Kind == experiment.RealClient:
			r.clientDuringAs(c, w, w.to, how, string(w.step.Fault)+" held")
		case reads == experiment.ReadsSome && c.Policy == experiment.Clear:
			n, failed := r.countOf(c.Name, w.from, w.to)
			r.res.Conclude(fmt.Sprintf("%s failed %d of %d calls while %s held (%s: its share depends on which member each of its reads reached first, not judged).",
				c.Name, failed, n, w.step.Fault, basis))
		default:
			r.noFailures(c, w, basis)
		}
		r.afterMemberHeal(c, w, how)
	}
}

// noFailures judges a caller that every read served: no call fails while
// the fault holds, every instance alive (a keep caller's failed refresh
// keeps its list, so it fails nothing either).
func (r *run) noFailures(c experiment.Caller, w window, basis string) {
	n, failed := r.countOf(c.Name, w.from, w.to)
	why := basis + ": every read answered, every instance lives"
	if c.Kind == experiment.PolicyCaller && c.Policy == experiment.Keep {
		why = "a failed refresh keeps the old list and every instance lives: every call reaches a live instance"
	}
	e := report.Exactly(fmt.Sprintf("%s: failures while %s held", c.Name, w.step.Fault), 0, "").About(c.Name).From(why)
	r.judgedSpan(c.Name, w.from, w.to)
	r.res.AddCheck(judgeCount(e, n, failed, fmt.Sprintf("%d of %d", failed, n)))
}

// afterMemberHeal judges a caller after a member fault's heal, when the
// world's recovery bound ends within the run; otherwise it says so.
func (r *run) afterMemberHeal(c experiment.Caller, w window, how experiment.How) {
	if !w.healed {
		return
	}
	o := r.outage(how, 0) // the instances reach a quorum throughout, or no leader expires anything
	rec, _, ok := r.recovery(c, o, rig.RefreshOf(c))
	if ok && w.to+rec >= w.until {
		r.recoverySpan(c.Name, w.to, w.until)
		n, failed := r.countOf(c.Name, w.to, w.until)
		r.res.Conclude(fmt.Sprintf("%s failed %d of %d calls after the heal (the world's recovery bound, %s, ends after the run or the next fault: not judged).",
			c.Name, failed, n, rec.Round(time.Second)))
		return
	}
	r.afterHealAs(c, w, o, string(w.step.Fault)+" healed")
}
