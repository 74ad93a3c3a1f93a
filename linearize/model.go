package linearize

import (
	"fmt"
	"math"
	"sort"

	"github.com/anishathalye/porcupine"
)

// regInput is an operation's call as porcupine sees it.
type regInput struct {
	Key    string
	Member string
	Kind   Kind
	// Value is the value a put writes.
	Value string
}

// regOutput is an operation's answer: the value a get read ("" = absent).
type regOutput struct{ Value string }

// model is a register per key (partitioned by key): a put sets the
// register, a get — linearizable or serializable alike, since the checker
// asks whether the answer fits one sequential order — must read it.
// The state is the register's value, "" while the key is absent.
var model = porcupine.Model{
	Partition: byKey,
	Init:      func() any { return "" },
	Step: func(state, in, out any) (bool, any) {
		i, s := in.(regInput), state.(string)
		if i.Kind == Put {
			return true, i.Value
		}
		return out.(regOutput).Value == s, s
	},
	DescribeOperation: func(in, out any) string {
		i := in.(regInput)
		if i.Kind == Put {
			return fmt.Sprintf("%s: put %s", i.Member, i.Value)
		}
		return fmt.Sprintf("%s: %s → %s", i.Member, i.Kind, show(out.(regOutput).Value))
	},
	DescribeState: func(state any) string { return show(state.(string)) },
}

// show prints a register value, "(absent)" for "".
func show(v string) string {
	if v == "" {
		return "(absent)"
	}
	return v
}

// byKey partitions a history by key, keys in order of first appearance
// and each key's operations in their order in the history.
func byKey(history []porcupine.Operation) [][]porcupine.Operation {
	index := map[string]int{}
	var parts [][]porcupine.Operation
	for _, op := range history {
		k := op.Input.(regInput).Key
		i, ok := index[k]
		if !ok {
			i = len(parts)
			index[k] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], op)
	}
	return parts
}

// pending is the return time of a put without an answer: it may take
// effect at any time after its call.
const pending = math.MaxInt64

// prepared is the history porcupine checks: one partition per key (keys
// sorted), the operations of each, and what was left out.
type prepared struct {
	keys  []string
	parts [][]KV
	ops   []porcupine.Operation
	// dropped counts gets without an answer (they say nothing) and puts
	// without an acknowledgement whose value nobody read (whether they took
	// effect changes no answer, so leaving them out is exact); pendingPuts
	// counts the unacknowledged puts kept, as may-have-happened.
	dropped, pendingPuts int
}

// prepare selects with keep and turns the selection into porcupine's
// operations. A put that failed or timed out is treated as may-have-
// happened (etcd reports "request timed out" after the proposal entered
// raft, so an error does not prove the write absent): it is kept, with no
// return time, when some get read its value, and dropped otherwise.
func prepare(kvs []KV, keep func(KV) bool) prepared {
	observed := map[string]bool{}
	var sel []KV
	for _, kv := range kvs {
		if keep(kv) {
			sel = append(sel, kv)
			if kv.Kind != Put && kv.Acked() && kv.Value != "" {
				observed[kv.Key+"\x00"+kv.Value] = true
			}
		}
	}
	sort.SliceStable(sel, func(i, j int) bool { return sel[i].Call < sel[j].Call })
	var p prepared
	byKeyOps := map[string][]porcupine.Operation{}
	byKeyKV := map[string][]KV{}
	rows := newLanes()
	for _, kv := range sel {
		switch {
		case kv.Kind != Put && !kv.Acked(), kv.Kind == Put && !kv.Acked() && !observed[kv.Key+"\x00"+kv.Value]:
			p.dropped++
			continue
		case kv.Kind == Put && !kv.Acked():
			p.pendingPuts++
		}
		byKeyKV[kv.Key] = append(byKeyKV[kv.Key], kv)
		byKeyOps[kv.Key] = append(byKeyOps[kv.Key], operation(kv, rows))
	}
	for k := range byKeyKV {
		p.keys = append(p.keys, k)
	}
	sort.Strings(p.keys)
	for _, k := range p.keys {
		p.parts = append(p.parts, byKeyKV[k])
		p.ops = append(p.ops, byKeyOps[k]...)
	}
	return p
}

// operation is kv as porcupine's operation.
func operation(kv KV, l *lanes) porcupine.Operation {
	ret := int64(kv.Return)
	if kv.Kind == Put && !kv.Acked() {
		ret = pending
	}
	return porcupine.Operation{ClientId: l.assign(kv.Member, int64(kv.Call), ret), Input: regInput{Key: kv.Key, Member: kv.Member, Kind: kv.Kind, Value: kv.Value},
		Call: int64(kv.Call), Output: regOutput{Value: kv.Value}, Return: ret,
		Metadata: fmt.Sprintf("%s #%d (%s)", kv.Caller(), kv.Seq, kv.Outcome)}
}

// lanes gives each operation a visualisation row: porcupine draws one row
// per client id, and the open-loop traffic of a member has calls in flight
// at once, so each member gets as many rows as it had calls overlapping.
type lanes struct {
	free map[string][]int // member → its rows
	end  []int64          // row → return time of its last operation
}

func newLanes() *lanes { return &lanes{free: map[string][]int{}} }

// assign returns the first row of member free at call, taking a new row if none is.
func (l *lanes) assign(member string, call, ret int64) int {
	for _, row := range l.free[member] {
		if l.end[row] < call {
			l.end[row] = ret
			return row
		}
	}
	l.end = append(l.end, ret)
	row := len(l.end) - 1
	l.free[member] = append(l.free[member], row)
	return row
}
