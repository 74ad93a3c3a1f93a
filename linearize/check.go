package linearize

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
)

// DefaultTimeout bounds one check: porcupine's search is NP-hard in the
// worst case, and a check that does not finish is reported as given up —
// never as a pass.
const DefaultTimeout = 10 * time.Second

// Verdict is what the checker concluded about a history.
type Verdict int

const (
	// Linearizable: one sequential order explains every answer.
	Linearizable Verdict = iota
	// NotLinearizable: no order does; Result.Witnesses names the operations.
	NotLinearizable
	// GaveUp: the checker hit its time bound before deciding.
	GaveUp
)

// String returns "yes", "no" or "gave up" (the answer to "linearizable?").
func (v Verdict) String() string {
	switch v {
	case Linearizable:
		return "yes"
	case NotLinearizable:
		return "no"
	case GaveUp:
		return "gave up"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Result is one linearizability check.
type Result struct {
	Verdict Verdict
	// Checked is how many operations porcupine ordered; Keys how many keys
	// (partitions) they touch.
	Checked, Keys int
	// Dropped counts the selected operations left out (gets without an
	// answer; unacknowledged puts whose value nobody read); Pending counts
	// the unacknowledged puts kept as may-have-happened (no return time).
	Dropped, Pending int
	// Took is how long porcupine ran; Timeout its bound.
	Took, Timeout time.Duration
	// Witnesses name, per key that is not linearizable, the operations no
	// order can explain (empty unless Verdict is NotLinearizable).
	Witnesses []Witness
	info      porcupine.LinearizationInfo
}

// Check asks porcupine whether the operations of kvs selected by keep are
// linearizable, per key, within timeout (DefaultTimeout when 0).
func Check(kvs []KV, keep func(KV) bool, timeout time.Duration) Result {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	p := prepare(kvs, keep)
	start := time.Now()
	res, info := porcupine.CheckOperationsVerbose(model, p.ops, timeout)
	r := Result{Checked: len(p.ops), Keys: len(p.keys), Dropped: p.dropped, Pending: p.pendingPuts,
		Took: time.Since(start), Timeout: timeout, info: info}
	switch res {
	case porcupine.Ok:
		r.Verdict = Linearizable
	case porcupine.Illegal:
		r.Verdict, r.Witnesses = NotLinearizable, witnesses(p, info)
	default:
		r.Verdict = GaveUp
	}
	return r
}

// Summary is the result in a few words: "yes (120 ops)", "no: 2 keys …",
// "gave up after 10 s (5000 ops)".
func (r Result) Summary() string {
	switch r.Verdict {
	case Linearizable:
		return fmt.Sprintf("yes (%d ops)", r.Checked)
	case NotLinearizable:
		return fmt.Sprintf("no (%d ops): %d of %d keys cannot be ordered", r.Checked, len(r.Witnesses), r.Keys)
	}
	return fmt.Sprintf("gave up after %s (%d ops)", r.Timeout, r.Checked)
}
