package anyregistry

import (
	"fmt"
	"slices"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// probeRun is one run of a members probe: when it fired and its ops.
type probeRun struct {
	at  time.Duration
	ops []history.Op
}

// probes returns every members probe that fired, with its ops.
func (r *run) probes() []probeRun {
	var out []probeRun
	for i, s := range r.x.Timeline {
		if s.Probe == "" {
			continue
		}
		for _, e := range r.h.Events.OfOrigin(i + 1) {
			out = append(out, probeRun{at: e.At, ops: probeOps(r.h.Ops, e.At)})
		}
	}
	return out
}

// probeOps are the members probe's ops that started in the probe's span.
func probeOps(ops []history.Op, at time.Duration) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.Kind == history.OpProbe && op.Via != "" && op.Start >= at && op.Start < at+2*rig.ProbeTimeout+time.Second {
			out = append(out, op)
		}
	}
	return out
}

// memberChecks judge, for every probe during a member fault, what each
// member answered against its world's rule for its role; killed members
// are not asked.
func (r *run) memberChecks(w window) {
	found := false
	for _, p := range r.probes() {
		if p.at < w.from || p.at >= w.to {
			continue
		}
		found = true
		for _, op := range p.ops {
			r.memberCheck(w, p, op)
		}
	}
	if !found {
		r.res.AddCheck(report.Yes(fmt.Sprintf("a members probe during %s", w.step.Fault), "yes", "no").
			Invalid("no members probe fired while the fault held: add a probe step inside it"))
	}
}

// memberCheck judges one member's answer to one probe op.
func (r *run) memberCheck(w window, p probeRun, op history.Op) {
	role, asked := roleOf(w, op.Via)
	if !asked {
		return // a killed member
	}
	po := experiment.ProbeOp(op.Target)
	b, ok := r.memberServes(w.step.Fault, role, po, p.at-w.from)
	name := fmt.Sprintf("%s (%s) at %s: %s answers", op.Via, role, report.Num(p.at.Round(100*time.Millisecond).Seconds())+" s", po)
	got := op.Outcome == history.OK
	text := "answers"
	if !got {
		text = "refused: " + report.ShortErr(op.Err)
	}
	if !ok {
		r.res.Conclude(fmt.Sprintf("%s: %s (%s has no rule for this role: not judged).", name, text, r.reg.Name()))
		return
	}
	if eitherWay(b) {
		r.res.Conclude(fmt.Sprintf("%s: %s (the rule allows either: %s; reported, not judged).", name, text, b.Basis))
		return
	}
	e := report.Yes(name, "answers", "refused").About(fmt.Sprintf("%s member: %s", role, po)).From(b.Basis)
	e.Lo, e.Hi = b.Lo, b.Hi
	r.res.AddCheck(e.JudgeText(report.B2F(got), text))
}

// roleOf is a member's role in a member fault: the survivor of a quorum
// loss, the member cut off, or a member of the majority; a killed member
// is not asked.
func roleOf(w window, member string) (experiment.Role, bool) {
	hit := slices.Contains(w.targets, member)
	if w.step.Fault == experiment.QuorumLoss {
		return experiment.Survivor, !hit
	}
	if hit {
		return experiment.CutOff, true
	}
	return experiment.Majority, true
}
