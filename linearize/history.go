// Package linearize checks what the clients of a key-value store saw: it
// reads the key-value operations of a recorded history (puts of unique
// values, linearizable gets, serializable gets, each with its invocation
// and completion time and its outcome), hands them to porcupine
// (github.com/anishathalye/porcupine) with a register model per key, and
// says whether one sequential order explains them all — or names the
// operations that no order can explain. It also checks that no
// acknowledged put was lost once the faults were healed, and writes
// porcupine's HTML visualisation of the history.
//
// The history format is the callers' contract: an op's Kind is put, get or
// ser-get (history.OpPut…), its Via the member, its Target the key, its
// Value the value written or read ("" for an absent key), its Outcome ok,
// fail or unknown. Everything here is a pure function of the ops, so it is tested
// without etcd.
package linearize

import (
	"sdchaos/history"
	"sort"
	"time"
)

// Kind is what a key-value operation does (the op's history.OpKind).
type Kind = history.OpKind

const (
	// Put writes a value no other put writes.
	Put = history.OpPut
	// Get is a linearizable read (etcd's default: ReadIndex through the leader).
	Get = history.OpGet
	// SerGet is a serializable read, served from the contacted member's own store.
	SerGet = history.OpSerGet
)

// Kinds lists every kind in the order callers cycle through them.
var Kinds = []Kind{Put, Get, SerGet}

// Prefix starts the caller label of every key-value op.
const Prefix = history.KVPrefix

// Final is the member (Via) of the reads made after healing, through every
// member: the reads the no-lost-write check compares.
const Final = history.ViaEvery

// CallerName returns the caller label of an op of kind on member: "kv/n1/put".
func CallerName(member string, k Kind) string { return history.KVCaller(member, k) }

// KV is one key-value operation of a history. Times are offsets from the
// run's time zero.
type KV struct {
	Member string
	Kind   Kind
	Key    string
	// Value is the value written (a put, whatever its outcome) or read (an
	// answered get; "" when the key was absent).
	Value        string
	Call, Return time.Duration
	Outcome      history.Outcome
	Err          string
	Seq          int
}

// Caller returns the op's caller name.
func (kv KV) Caller() string { return CallerName(kv.Member, kv.Kind) }

// Acked reports whether the op completed successfully.
func (kv KV) Acked() bool { return kv.Outcome == history.OK }

// Parse reads a key-value op (by its Kind and Via); false when op is not one.
func Parse(op history.Op) (KV, bool) {
	switch {
	case op.Kind != Put && op.Kind != Get && op.Kind != SerGet:
		return KV{}, false
	case op.Via == "" || op.Target == "":
		return KV{}, false
	}
	return KV{Member: op.Via, Kind: op.Kind, Key: op.Target, Value: op.Value, Call: op.Start, Return: op.End,
		Outcome: op.Outcome, Err: op.Err, Seq: op.Seq}, true
}

// FromOps returns the key-value ops of a history, by invocation time.
func FromOps(ops []history.Op) []KV {
	var out []KV
	for _, op := range ops {
		if kv, ok := Parse(op); ok {
			out = append(out, kv)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Call < out[j].Call })
	return out
}

// Strict selects the operations etcd promises to keep linearizable:
// puts and linearizable gets (the reads after healing included).
func Strict(kv KV) bool { return kv.Kind != SerGet }

// WithSerializableFrom selects the linearizable operations and the
// serializable gets served by the given members.
func WithSerializableFrom(members ...string) func(KV) bool {
	return func(kv KV) bool {
		if kv.Kind != SerGet {
			return true
		}
		for _, m := range members {
			if kv.Member == m {
				return true
			}
		}
		return false
	}
}

// Count returns how many of kvs have the kind and the outcome.
func Count(kvs []KV, k Kind, o history.Outcome) int {
	n := 0
	for _, kv := range kvs {
		if kv.Kind == k && kv.Outcome == o {
			n++
		}
	}
	return n
}
