package linearize

import (
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// Witness shows why one key's operations are not linearizable, from
// porcupine's longest partial linearization: after ordering Linearized of
// the key's Of operations, the register held Last's value (or nothing) and
// Stuck — the earliest-returning operation left — could not come next.
type Witness struct {
	Key            string
	Linearized, Of int
	// Stuck is the operation no order can place after the prefix.
	Stuck KV
	// Last is the put whose value the register held at the end of the
	// prefix (HasLast false: the key was still absent).
	Last    KV
	HasLast bool
	// Source is the put that wrote the value Stuck read (HasSource false
	// when Stuck read the key absent, or a value no put wrote).
	Source    KV
	HasSource bool
	// Overwrite, when HasOverwrite, proves Stuck stale by real time alone:
	// an acknowledged put of the key invoked after Source returned (any,
	// when Stuck read the key absent) and acknowledged before Stuck was
	// invoked — the latest such put.
	Overwrite    KV
	HasOverwrite bool
}

// witnesses returns one witness per key whose partition porcupine could
// not linearize (no partial linearization covers all its operations).
func witnesses(p prepared, info porcupine.LinearizationInfo) []Witness {
	partials := info.PartialLinearizations()
	var out []Witness
	for i, part := range p.parts {
		if i >= len(partials) {
			break
		}
		best := longest(partials[i])
		if len(best) == len(part) {
			continue
		}
		out = append(out, witnessOf(p.keys[i], part, best))
	}
	return out
}

// longest returns the longest partial linearization (ties: the
// lexicographically smallest, so a report does not depend on map order).
func longest(ls [][]int) []int {
	var best []int
	for _, l := range ls {
		if len(l) > len(best) || (len(l) == len(best) && slices.Compare(l, best) < 0) {
			best = l
		}
	}
	return best
}

// witnessOf explains why part cannot be extended beyond prefix.
func witnessOf(key string, part []KV, prefix []int) Witness {
	w := Witness{Key: key, Linearized: len(prefix), Of: len(part)}
	in := map[int]bool{}
	for _, id := range prefix {
		in[id] = true
		if part[id].Kind == Put {
			w.Last, w.HasLast = part[id], true
		}
	}
	state := ""
	if w.HasLast {
		state = w.Last.Value
	}
	w.Stuck = stuck(part, in, state)
	if w.Stuck.Kind != Put && w.Stuck.Value != "" {
		for _, kv := range part {
			if kv.Kind == Put && kv.Value == w.Stuck.Value {
				w.Source, w.HasSource = kv, true
			}
		}
	}
	if w.Stuck.Kind != Put && (w.HasSource || w.Stuck.Value == "") {
		w.Overwrite, w.HasOverwrite = overwrite(part, w)
	}
	return w
}

// overwrite returns the latest acknowledged put invoked after w's source
// returned (any put, when nothing was read) and acknowledged before w's
// read was invoked.
func overwrite(part []KV, w Witness) (KV, bool) {
	var best KV
	found := false
	for _, q := range part {
		after := !w.HasSource || (q.Value != w.Source.Value && w.Source.Acked() && w.Source.Return < q.Call)
		if q.Kind == Put && q.Acked() && q.Return < w.Stuck.Call && after && (!found || q.Return > best.Return) {
			best, found = q, true
		}
	}
	return best, found
}

// stuck returns the operation left out of the prefix that returned first
// among the gets that cannot read state (any left-out operation if none).
func stuck(part []KV, in map[int]bool, state string) KV {
	pick := -1
	for id, kv := range part {
		if in[id] || kv.Kind == Put || kv.Value == state {
			continue
		}
		if pick < 0 || kv.Return < part[pick].Return {
			pick = id
		}
	}
	if pick >= 0 {
		return part[pick]
	}
	for id := range part {
		if !in[id] && (pick < 0 || part[id].Return < part[pick].Return) {
			pick = id
		}
	}
	return part[pick]
}

// Stale reports whether the witness is a stale read proven by real time
// alone: a newer put was acknowledged before the read began (Overwrite).
func (w Witness) Stale() bool { return w.HasOverwrite }

// Explain says in one sentence what the offending operations show.
func (w Witness) Explain() string {
	read := fmt.Sprintf("%s of %s at %s returned %s", whose(w.Stuck), w.Key, span(w.Stuck), show(w.Stuck.Value))
	switch {
	case w.Stuck.Kind != Put && w.Stuck.Value != "" && !w.HasSource:
		return read + ", a value no put of the key wrote"
	case w.Stale() && w.HasSource:
		return fmt.Sprintf("stale read: %s, written by %s's put acknowledged at %s, but %s's put of %s, invoked after it at %s, had been acknowledged at %s, before the read began",
			read, w.Source.Member, at(w.Source.Return), w.Overwrite.Member, w.Overwrite.Value, at(w.Overwrite.Call), at(w.Overwrite.Return))
	case w.Stale():
		return fmt.Sprintf("stale read: %s, but %s's put of %s had been acknowledged at %s, before the read began",
			read, w.Overwrite.Member, w.Overwrite.Value, at(w.Overwrite.Return))
	case w.HasLast:
		return fmt.Sprintf("%s, which cannot follow the %d operations ordered before it (the key then held %s, written by %s)",
			read, w.Linearized, w.Last.Value, w.Last.Member)
	}
	return fmt.Sprintf("%s, which cannot follow the %d operations ordered before it (the key then absent)", read, w.Linearized)
}

// Rows lists the offending operations, one row each: key, role, operation,
// invoked, returned, result.
func (w Witness) Rows() [][]string {
	var rows [][]string
	if w.HasSource {
		rows = append(rows, row(w.Key, "wrote the value the read returned", w.Source))
	}
	switch {
	case w.HasOverwrite:
		rows = append(rows, row(w.Key, "a newer put, acknowledged before the read began", w.Overwrite))
	case w.HasLast:
		rows = append(rows, row(w.Key, fmt.Sprintf("last write porcupine ordered before the read (%d of %d ops)", w.Linearized, w.Of), w.Last))
	}
	role := "the read no order explains"
	if w.Stale() {
		role = "the stale read"
	}
	return append(rows, row(w.Key, role, w.Stuck))
}

// Header is the header of Rows.
var Header = []string{"key", "role", "operation", "invoked", "returned", "result"}

func row(key, role string, kv KV) []string {
	ret, result := at(kv.Return), kv.Outcome.String()
	switch {
	case kv.Kind == Put && !kv.Acked():
		ret, result = "no answer ("+kv.Outcome.String()+")", "may have been applied"
	case kv.Kind == Put:
		result = "ok: wrote " + kv.Value
	default:
		result = "ok: read " + show(kv.Value)
	}
	return []string{key, role, fmt.Sprintf("%s #%d", kv.Caller(), kv.Seq), at(kv.Call), ret, result}
}

// whose names an operation in prose: "n3's ser-get", "the get after healing".
func whose(kv KV) string {
	if kv.Member == Final {
		return "the " + string(kv.Kind) + " after healing"
	}
	return kv.Member + "'s " + string(kv.Kind)
}

// at prints a time offset in seconds with milliseconds.
func at(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func span(kv KV) string { return fmt.Sprintf("%.3f–%.3f s", kv.Call.Seconds(), kv.Return.Seconds()) }
