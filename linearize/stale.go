package linearize

import (
	"slices"

	"sdchaos/history"
)

// ProvenStale reports whether real time alone proves the get g of kvs
// stale: an acknowledged put of its key, invoked after the put of the
// value g read had returned (any acknowledged put, when g read the key
// absent), was acknowledged before g was invoked. A get of a value no put
// wrote, or written by a put that never answered, is not proven stale
// here (porcupine may still find it unexplainable).
func ProvenStale(kvs []KV, g KV) bool {
	if g.Kind == Put || !g.Acked() {
		return false
	}
	var source *KV
	if g.Value != "" {
		i := slices.IndexFunc(kvs, func(p KV) bool { return p.Kind == Put && p.Key == g.Key && p.Value == g.Value })
		if i < 0 || !kvs[i].Acked() {
			return false
		}
		source = &kvs[i]
	}
	return slices.ContainsFunc(kvs, func(q KV) bool {
		newer := source == nil || (q.Value != source.Value && source.Return < q.Call)
		return q.Kind == Put && q.Key == g.Key && q.Acked() && q.Return < g.Call && newer
	})
}

// StaleReads returns the serializable gets of the cut-off members that
// the judging flags, by invocation: those porcupine's witnesses name once
// these gets are added (the WithSer check), and every one real time
// proves stale (ProvenStale).
func (j Judged) StaleReads() []KV {
	cut := WithSerializableFrom(j.Cutoff...)
	var out []KV
	for _, kv := range j.KVs {
		if kv.Kind != SerGet || !cut(kv) {
			continue
		}
		named := slices.ContainsFunc(j.WithSer.Witnesses, func(w Witness) bool { return w.Stuck.Is(kv) })
		if named || ProvenStale(j.KVs, kv) {
			out = append(out, kv)
		}
	}
	return out
}

// Is reports whether kv and o are the same operation (member, kind, key,
// sequence number and invocation).
func (kv KV) Is(o KV) bool {
	return kv.Member == o.Member && kv.Kind == o.Kind && kv.Key == o.Key && kv.Seq == o.Seq && kv.Call == o.Call
}

// Of reports whether op is the recorded op kv was read from.
func (kv KV) Of(op history.Op) bool {
	o, ok := Parse(op)
	return ok && kv.Is(o)
}
