package linearize

import (
	"fmt"
	"math"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// Judged is the key-value traffic of one history, checked three ways:
// the operations etcd keeps linearizable (puts and linearizable gets),
// the same with the serializable gets of the members cut off from their
// peers, and the reads after healing against the acknowledged puts.
type Judged struct {
	KVs []KV
	// Cutoff names the members whose serializable gets WithSer adds.
	Cutoff          []string
	Strict, WithSer Result
	Durable         Durability
}

// JudgeOps checks the key-value ops of a history (each porcupine check
// bounded by timeout); false when the history holds none (it was recorded
// before the traffic existed, or by a plan without it).
func JudgeOps(ops []history.Op, cutoff []string, timeout time.Duration) (Judged, bool) {
	kvs := FromOps(ops)
	if len(kvs) == 0 {
		return Judged{}, false
	}
	return Judged{KVs: kvs, Cutoff: cutoff, Strict: Check(kvs, Strict, timeout),
		WithSer: Check(kvs, WithSerializableFrom(cutoff...), timeout), Durable: CheckDurable(kvs)}, true
}

// cutoffText is "n1" or "n1, n2" ("no member" when none).
func (j Judged) cutoffText() string {
	if len(j.Cutoff) == 0 {
		return "no member"
	}
	return strings.Join(j.Cutoff, ", ")
}

// LinearizableCheck is check (a): the puts and linearizable gets are
// linearizable. Invalid when nothing was checked or porcupine gave up.
func (j Judged) LinearizableCheck(claim report.Claim) report.Check {
	e := report.Yes("linearizable: puts + linearizable gets (porcupine)", "yes", "no").
		From("etcd orders every put and every linearizable get through raft (ReadIndex for reads): one sequential order explains what the clients saw").
		Says(claim)
	switch {
	case j.Strict.Checked == 0:
		return e.Invalid("no put or linearizable get was answered")
	case j.Strict.Verdict == GaveUp:
		return e.Invalid(j.Strict.Summary())
	}
	text := j.Strict.Summary()
	if j.Strict.Verdict == NotLinearizable {
		text = fmt.Sprintf("no (%d ops): %s", j.Strict.Checked, j.Strict.Witnesses[0].Explain())
	}
	return e.JudgeText(report.B2F(j.Strict.Verdict == Linearizable), text)
}

// StaleCheckName names check (b).
const StaleCheckName = "cut-off member's serializable gets make the history non-linearizable (stale read)"

// StaleCheck is check (b) where the scenario's rules predict a stale read
// (basis says which rule): adding the cut-off members' serializable gets
// makes the history non-linearizable. why, when not empty, makes it
// invalid (the history holds no read the rule applies to).
func (j Judged) StaleCheck(basis, why string, claim report.Claim) report.Check {
	e := report.Yes(StaleCheckName, "not linearizable", "linearizable").From(basis).Says(claim)
	switch {
	case why != "":
		return e.Invalid(why)
	case j.WithSer.Verdict == GaveUp:
		return e.Invalid(j.WithSer.Summary())
	}
	return e.JudgeText(report.B2F(j.WithSer.Verdict == NotLinearizable), j.serText())
}

// serText says what adding the serializable gets showed.
func (j Judged) serText() string {
	switch j.WithSer.Verdict {
	case NotLinearizable:
		w := j.WithSer.Witnesses[0]
		what := "a read no order explains"
		if w.Stale() {
			what = "stale read"
		}
		return fmt.Sprintf("not linearizable (%d ops): %s by %s on %s", j.WithSer.Checked, what, w.Stuck.Member, w.Key)
	case Linearizable:
		return fmt.Sprintf("linearizable (%d ops)", j.WithSer.Checked)
	}
	return j.WithSer.Summary()
}

// DurableCheck is check (c): after healing, every acknowledged put is
// present with its last acknowledged value. Invalid when no put was
// acknowledged or a key could not be read after healing.
func (j Judged) DurableCheck(claim report.Claim) report.Check {
	d := j.Durable
	e := report.Exactly("acknowledged puts lost after healing", 0, "").
		From("etcd acknowledges a put once a quorum has it in its log; a member that rejoins takes the leader's log, so no acknowledged put is rolled back").
		Says(claim)
	switch {
	case d.Acked == 0:
		return e.Invalid("no put was acknowledged")
	case len(d.Unread) > 0:
		return e.Invalid("no answered read after healing of " + strings.Join(d.Unread, ", "))
	}
	text := fmt.Sprintf("%d of %d (%d keys read after healing)", d.LostPuts(), d.Acked, d.Keys)
	if len(d.Losses) > 0 {
		text += ": " + d.Losses[0].Explain()
	}
	return e.JudgeText(float64(d.LostPuts()), text)
}

// Metrics adds the traffic's counts and the checks' results (1 yes, 0 no,
// NaN gave up); the checker's own times go to Timings.
func (j Judged) Metrics(mt report.Metrics) {
	for _, k := range Kinds {
		name := "kv." + strings.ReplaceAll(string(k), "-", "_")
		mt[name+".ok"], mt[name+".fail"] = float64(Count(j.KVs, k, history.OK)), float64(Count(j.KVs, k, history.Fail))
		mt[name+".unknown"] = float64(Count(j.KVs, k, history.Unknown))
	}
	res := func(prefix string, r Result) {
		mt[prefix+".checked"] = float64(r.Checked)
		mt[prefix+".linearizable"] = map[Verdict]float64{Linearizable: 1, NotLinearizable: 0, GaveUp: math.NaN()}[r.Verdict]
	}
	res("kv.lin", j.Strict)
	res("kv.with_ser", j.WithSer)
	mt["kv.acked_puts"], mt["kv.lost_puts"] = float64(j.Durable.Acked), float64(j.Durable.LostPuts())
}

// Timings adds how long each porcupine check ran (ms): a figure of this
// judging, not of the run, so it changes each time the history is judged.
func (j Judged) Timings(res *report.Result) {
	res.Time("kv.lin.check_ms", report.Ms(j.Strict.Took))
	res.Time("kv.with_ser.check_ms", report.Ms(j.WithSer.Took))
}

// Table summarises the two porcupine checks and the reads after healing.
func (j Judged) Table() report.Table {
	row := func(what string, r Result) []string {
		return []string{what, fmt.Sprint(r.Checked), fmt.Sprintf("%d / %d", r.Dropped, r.Pending), r.Verdict.String(),
			fmt.Sprintf("%.1f ms (bound %s)", report.Ms(r.Took), r.Timeout)}
	}
	d := j.Durable
	return report.Table{
		Title:  fmt.Sprintf("Linearizability of what the key-value clients saw (porcupine, a register per key; %d ops recorded)", len(j.KVs)),
		Header: []string{"history", "ops checked", "left out / kept unanswered", "linearizable", "checker time"},
		Rows: [][]string{
			row("puts + linearizable gets", j.Strict),
			row("+ serializable gets of "+j.cutoffText(), j.WithSer),
			{"reads after healing", fmt.Sprint(d.Keys), "—", fmt.Sprintf("%d of %d acknowledged puts lost", d.LostPuts(), d.Acked), "—"},
		},
		Notes: []string{"left out: gets without an answer, and unacknowledged puts whose value no get read (exact: whether they took effect changes no answer); " +
			"kept unanswered: unacknowledged puts whose value was read, which may take effect any time after their call"},
	}
}

// maxWitnesses bounds the witness table.
const maxWitnesses = 3

// WitnessTable lists the offending operations of the first witnesses of
// r (false when r is linearizable or gave up).
func WitnessTable(title string, r Result) (report.Table, bool) {
	if r.Verdict != NotLinearizable {
		return report.Table{}, false
	}
	t := report.Table{Title: title, Header: Header}
	for i, w := range r.Witnesses {
		if i == maxWitnesses {
			t.Notes = append(t.Notes, fmt.Sprintf("… and %d more keys", len(r.Witnesses)-maxWitnesses))
			break
		}
		t.Rows = append(t.Rows, w.Rows()...)
		t.Notes = append(t.Notes, w.Explain())
	}
	return t, true
}

// AddTo adds the tables, metrics and conclusion to res and attaches
// porcupine's visualisation of the history with the serializable gets
// (annotated with the faults of evs) as "history.html". It reports the
// checks it is given; the scenario chooses them.
func (j Judged) AddTo(res *report.Result, evs history.Events, checks ...report.Check) {
	j.Metrics(res.Metrics)
	j.Timings(res)
	res.AddTable(j.Table())
	if t, ok := WitnessTable("Not linearizable: the offending operations (puts + linearizable gets)", j.Strict); ok {
		res.AddTable(t)
	}
	if t, ok := WitnessTable("Stale reads: the offending operations once the serializable gets of "+j.cutoffText()+" are added", j.WithSer); ok {
		res.AddTable(t)
	}
	res.AddCheck(checks...)
	res.Conclude(j.conclusion())
	if b, err := j.WithSer.HTML(evs); err == nil {
		res.Attach("history.html", b)
	} else {
		res.Conclude("The visualisation could not be written: " + err.Error())
	}
}

// conclusion sums the three checks up in one paragraph.
func (j Judged) conclusion() string {
	s := fmt.Sprintf("Key-value traffic: %d puts acknowledged of %d, %d linearizable and %d serializable gets answered. Porcupine: puts + linearizable gets %s in %.1f ms; with the serializable gets of %s %s in %.1f ms",
		Count(j.KVs, Put, history.OK), countKind(j.KVs, Put), Count(j.KVs, Get, history.OK)-finals(j.KVs), Count(j.KVs, SerGet, history.OK),
		j.Strict.Summary(), report.Ms(j.Strict.Took), j.cutoffText(), j.serText(), report.Ms(j.WithSer.Took))
	if j.WithSer.Verdict == NotLinearizable {
		s += " — " + j.WithSer.Witnesses[0].Explain()
	}
	return s + fmt.Sprintf(". After healing %d of %d acknowledged puts were lost.", j.Durable.LostPuts(), j.Durable.Acked)
}

func countKind(kvs []KV, k Kind) int {
	n := 0
	for _, kv := range kvs {
		if kv.Kind == k && kv.Member != Final {
			n++
		}
	}
	return n
}

func finals(kvs []KV) int {
	n := 0
	for _, kv := range kvs {
		if kv.Member == Final && kv.Acked() {
			n++
		}
	}
	return n
}

// StaleForced finds a read the rule "a member cut off from its peers
// cannot see a put made after the cut" forces to be stale: a put
// acknowledged by any member, invoked at or after from, and a serializable
// get answered by one of members on the same key, invoked after the put
// returned and answered by to. False when the history holds none.
func StaleForced(kvs []KV, members []string, from, to time.Duration) (put, get KV, ok bool) {
	in := WithSerializableFrom(members...)
	for _, p := range kvs {
		if p.Kind != Put || !p.Acked() || p.Call < from {
			continue
		}
		for _, g := range kvs {
			if g.Kind == SerGet && in(g) && g.Acked() && g.Key == p.Key && g.Call > p.Return && g.Return <= to {
				return p, g, true
			}
		}
	}
	return KV{}, KV{}, false
}
