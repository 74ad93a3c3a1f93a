package linearize

import (
	"testing"

	"sdchaos/history"
)

// TestStaleReads: the cut-off member's serializable gets that a newer
// acknowledged put proves stale are all flagged (porcupine names one per
// key); a get of the current value, a get concurrent with the newer put,
// and another member's gets are not.
func TestStaleReads(t *testing.T) {
	ops := during(put("n1", "b", "n1-4", 60, 64),
		serGet("n3", "b", "n2-1", 70, 71),   // stale: n1-4 was acknowledged at 64
		serGet("n3", "b", "n2-1", 80, 81),   // stale again: porcupine names only the first
		serGet("n3", "b", "n1-4", 90, 91),   // current
		serGet("n3", "a", "n3-2", 92, 93),   // current
		serGet("n2", "b", "n2-1", 94, 95),   // stale, but n2 is not cut off
		put("n1", "a", "n1-5", 100, 110),    // a put …
		serGet("n3", "a", "n3-2", 105, 106), // … still running: either value is fine
		final("a", "n1-5", 3000), final("b", "n1-4", 3000))
	j := judged(t, ops, "n3")
	got := j.StaleReads()
	var at []int
	for _, kv := range got {
		at = append(at, int(kv.Call/ms))
	}
	if len(at) != 2 || at[0] != 70 || at[1] != 80 {
		t.Errorf("stale reads invoked at %v ms, want 70 and 80", at)
	}
	for _, kv := range got {
		if kv.Member != "n3" || kv.Kind != SerGet {
			t.Errorf("flagged %s's %s", kv.Member, kv.Kind)
		}
	}
	if j.WithSer.Verdict != NotLinearizable {
		t.Errorf("porcupine with n3's serializable gets: %s, want not linearizable", j.WithSer.Verdict)
	}
	rec := history.Op{Caller: CallerName("n3", SerGet), Kind: SerGet, Via: "n3", Target: "b", Value: "n2-1", Start: 80 * ms, End: 81 * ms, Outcome: history.OK}
	if !got[1].Of(rec) {
		t.Error("a flagged read does not match the op it was read from")
	}
	if rec.Start++; got[1].Of(rec) {
		t.Error("a flagged read matches another op")
	}
}

// TestProvenStaleNeedsAnAcknowledgedSource: a read of a value whose put
// never answered is not proven stale (that put may have taken effect
// last), nor a read of a value no put wrote.
func TestProvenStaleNeedsAnAcknowledgedSource(t *testing.T) {
	kvs := FromOps([]history.Op{
		op("n1", Put, "a", "n1-0", 0, 2000, history.Unknown), put("n2", "a", "n2-1", 10, 12),
		serGet("n3", "a", "n1-0", 20, 21), serGet("n3", "a", "nobody", 22, 23), serGet("n3", "a", "", 24, 25)})
	for _, kv := range kvs[2:4] {
		if ProvenStale(kvs, kv) {
			t.Errorf("the read of %q at %s is proven stale", kv.Value, kv.Call)
		}
	}
	if !ProvenStale(kvs, kvs[4]) {
		t.Error("a read of the key absent after an acknowledged put is not proven stale")
	}
}
