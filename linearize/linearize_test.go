package linearize

import (
	"sdchaos/history"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// op builds a recorded key-value op: caller kv/<member>/<kind>, [from, to] in ms.
func op(member string, k Kind, key, value string, from, to int, o history.Outcome) history.Op {
	return history.Op{Caller: CallerName(member, k), Kind: k, Via: member, Target: key, Value: value, Start: time.Duration(from) * ms,
		End: time.Duration(to) * ms, Scheduled: time.Duration(from) * ms, Outcome: o}
}

func put(member, key, value string, from, to int) history.Op {
	return op(member, Put, key, value, from, to, history.OK)
}

func get(member, key, value string, from, to int) history.Op {
	return op(member, Get, key, value, from, to, history.OK)
}

func serGet(member, key, value string, from, to int) history.Op {
	return op(member, SerGet, key, value, from, to, history.OK)
}

func final(key, value string, at int) history.Op { return get(Final, key, value, at, at+2) }

// during is what etcd would answer during a fault: puts and reads on two
// keys, one read concurrent with a put (either value is fine), an unknown
// put nobody read, a timed-out get; extra ops are appended.
func during(extra ...history.Op) []history.Op {
	return append([]history.Op{
		put("n1", "a", "n1-0", 0, 5), get("n2", "a", "n1-0", 10, 12), put("n2", "b", "n2-1", 11, 15),
		put("n3", "a", "n3-2", 20, 30), get("n1", "a", "n1-0", 21, 24), get("n2", "a", "n3-2", 31, 33),
		op("n3", Put, "b", "n3-3", 40, 2040, history.Unknown), op("n3", Get, "b", "", 41, 2041, history.Unknown),
		serGet("n1", "b", "n2-1", 50, 51)}, extra...)
}

// healthy is during with the reads after healing.
func healthy() []history.Op { return during(final("a", "n3-2", 3000), final("b", "n2-1", 3000)) }

// stale adds a newer put of b and a serializable read on n3 of b's old
// value after it was acknowledged (the cut-off member's read).
func stale() []history.Op {
	return during(put("n1", "b", "n1-4", 60, 64), serGet("n3", "b", "n2-1", 70, 71), final("a", "n3-2", 3000), final("b", "n1-4", 3000))
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		ops     []history.Op
		keep    func(KV) bool
		want    Verdict
		checked int
		// staleKey is the key of the one witness expected (with want NotLinearizable).
		staleKey string
	}{
		{"healthy", healthy(), Strict, Linearizable, 8, ""},
		{"healthy with every serializable get", healthy(), WithSerializableFrom("n1", "n2", "n3"), Linearizable, 9, ""},
		{"stale serializable read left out", stale(), Strict, Linearizable, 9, ""},
		{"stale serializable read of another member", stale(), WithSerializableFrom("n1"), Linearizable, 10, ""},
		// Must fail: the cut-off member's stale read; a stale linearizable read; a lost acknowledged write.
		{"stale serializable read of the cut-off member", stale(), WithSerializableFrom("n3"), NotLinearizable, 10, "b"},
		{"stale linearizable read", during(put("n1", "b", "n1-4", 60, 64), get("n3", "b", "n2-1", 70, 75), final("a", "n3-2", 3000), final("b", "n1-4", 3000)),
			Strict, NotLinearizable, 10, "b"},
		{"lost acknowledged write", during(put("n1", "b", "n1-4", 60, 64), final("a", "n3-2", 3000), final("b", "n2-1", 3000)), Strict, NotLinearizable, 9, "b"},
		{"read of a value never written", append(healthy(), get("n2", "a", "n9-9", 40, 41)), Strict, NotLinearizable, 9, "a"},
		{"unknown put read later is kept as may-have-happened", during(get("n1", "b", "n3-3", 2100, 2102), final("a", "n3-2", 3000), final("b", "n3-3", 3000)),
			Strict, Linearizable, 10, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(FromOps(tc.ops), tc.keep, time.Second)
			if r.Verdict != tc.want || r.Checked != tc.checked {
				t.Fatalf("verdict %s with %d ops checked, want %s with %d (%s)", r.Verdict, r.Checked, tc.want, tc.checked, r.Summary())
			}
			if tc.staleKey == "" {
				if len(r.Witnesses) != 0 {
					t.Errorf("witnesses on a linearizable history: %+v", r.Witnesses)
				}
				return
			}
			if len(r.Witnesses) != 1 || r.Witnesses[0].Key != tc.staleKey {
				t.Fatalf("witnesses %+v, want one on key %s", r.Witnesses, tc.staleKey)
			}
			t.Log(r.Witnesses[0].Explain())
		})
	}
}

func TestCountsDroppedAndPending(t *testing.T) {
	r := Check(FromOps(during(get("n1", "b", "n3-3", 2100, 2102), final("b", "n3-3", 3000))), Strict, 0)
	// dropped: the timed-out get; the unknown put is kept (n1 read its value).
	if r.Dropped != 1 || r.Pending != 1 || r.Keys != 2 || r.Timeout != DefaultTimeout {
		t.Errorf("dropped %d, pending %d, keys %d, timeout %s; want 1, 1, 2, %s", r.Dropped, r.Pending, r.Keys, r.Timeout, DefaultTimeout)
	}
	r = Check(FromOps(healthy()), Strict, 0)
	if r.Dropped != 2 || r.Pending != 0 {
		t.Errorf("dropped %d, pending %d; want 2 (the unknown put nobody read, the timed-out get), 0", r.Dropped, r.Pending)
	}
}

func TestStaleWitnessNamesTheOffendingOperations(t *testing.T) {
	r := Check(FromOps(stale()), WithSerializableFrom("n3"), time.Second)
	if len(r.Witnesses) != 1 {
		t.Fatalf("witnesses: %+v", r.Witnesses)
	}
	w := r.Witnesses[0]
	if !w.Stale() || w.Stuck.Caller() != "kv/n3/ser-get" || w.Overwrite.Value != "n1-4" || !w.HasSource || w.Source.Value != "n2-1" {
		t.Errorf("witness %+v: want n3's stale ser-get of n2-1 after n1's put of n1-4", w)
	}
	rows := w.Rows()
	if len(rows) != 3 || rows[1][2] != "kv/n1/put #0" || rows[2][1] != "the stale read" || len(rows[0]) != len(Header) {
		t.Errorf("rows %q", rows)
	}
	if e := w.Explain(); !strings.Contains(e, "stale read") || !strings.Contains(e, "n1-4") {
		t.Errorf("explanation %q", e)
	}
}

func TestGivesUpHonestly(t *testing.T) {
	var ops []history.Op
	for i := range 20000 {
		v := "n1-" + string(rune('a'+i%26)) + time.Duration(i).String()
		ops = append(ops, put("n1", "a", v, 10*i, 10*i+4), get("n2", "a", v, 10*i+5, 10*i+8))
	}
	r := Check(FromOps(ops), Strict, time.Nanosecond)
	if r.Verdict != GaveUp || !strings.HasPrefix(r.Summary(), "gave up after 1ns") {
		t.Errorf("verdict %s (%s), want gave up", r.Verdict, r.Summary())
	}
}

func TestCheckDurable(t *testing.T) {
	tests := []struct {
		name        string
		ops         []history.Op
		lost        int
		unread, key string
	}{
		{"every acknowledged put present", healthy(), 0, "", ""},
		{"value of a put concurrent with the last acknowledged one", during(put("n1", "b", "n1-4", 12, 60), final("a", "n3-2", 3000), final("b", "n2-1", 3000)), 0, "", ""},
		{"value of an unacknowledged put", during(final("a", "n3-2", 3000), final("b", "n3-3", 3000)), 0, "", ""},
		// Must fail: an older value, or the key gone, after an acknowledged put.
		{"older value after healing", during(put("n1", "b", "n1-4", 60, 64), final("a", "n3-2", 3000), final("b", "n2-1", 3000)), 1, "", "b"},
		{"key gone after healing", during(final("a", "", 3000), final("b", "n2-1", 3000)), 2, "", "a"},
		{"a later read after healing decides", append(healthy(), final("a", "", 2990)), 0, "", ""},
		{"no read after healing", []history.Op{put("n1", "a", "n1-0", 0, 5)}, 0, "a", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := CheckDurable(FromOps(tc.ops))
			if d.LostPuts() != tc.lost {
				t.Errorf("lost %d, want %d: %+v", d.LostPuts(), tc.lost, d.Losses)
			}
			if tc.key != "" && (len(d.Losses) != 1 || d.Losses[0].Key != tc.key) {
				t.Errorf("losses %+v, want one on %s", d.Losses, tc.key)
			}
			if got := strings.Join(d.Unread, ","); got != tc.unread {
				t.Errorf("unread %q, want %q", got, tc.unread)
			}
			for _, l := range d.Losses {
				t.Log(l.Explain())
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		op   history.Op
		ok   bool
		kind Kind
	}{
		{put("n1", "a", "v", 0, 1), true, Put},
		{serGet("n2", "a", "v", 0, 1), true, SerGet},
		{final("a", "v", 0), true, Get},
		{history.Op{Caller: "keep", Kind: history.OpCall, Target: "a"}, false, ""},
		{history.Op{Caller: "kv/n1/delete", Kind: "delete", Via: "n1", Target: "a"}, false, ""},
		{history.Op{Caller: "kv/n1/put", Kind: Put, Via: "n1"}, false, ""},
		// The caller label is not read: an op labelled as a put but not of that kind is no put.
		{history.Op{Caller: "kv/n1/put", Target: "a"}, false, ""},
	}
	for _, tc := range tests {
		kv, ok := Parse(tc.op)
		if ok != tc.ok || (ok && (kv.Kind != tc.kind || kv.Caller() != tc.op.Caller)) {
			t.Errorf("Parse(%s) = %+v, %v", tc.op.Caller, kv, ok)
		}
	}
}

func TestLanesKeepOverlappingCallsApart(t *testing.T) {
	l := newLanes()
	a, b, c, d := l.assign("x", 0, 10), l.assign("x", 5, 15), l.assign("x", 11, 20), l.assign("y", 0, 1)
	if a == b || c != a || d == a || d == b {
		t.Errorf("rows %d %d %d %d: want overlapping calls apart, a free row reused, callers apart", a, b, c, d)
	}
}

func TestHTML(t *testing.T) {
	r := Check(FromOps(stale()), WithSerializableFrom("n3"), time.Second)
	evs := history.Events{{At: 55 * ms, Kind: history.PartitionMember, Phase: history.Inject, Label: "cut n3 off"},
		{At: 2500 * ms, Kind: history.PartitionMember, Phase: history.Heal, Label: "healed: cut n3 off"}}
	b, err := r.HTML(evs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<html", "cut n3 off", "n3: ser-get → n2-1", "witness b"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("visualisation lacks %q", want)
		}
	}
}
