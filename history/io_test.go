package history

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"testing"
	"time"
)

func TestWriteThenReadKeepsKinds(t *testing.T) {
	h := &History{Ops: []Op{{Caller: KVCaller("n1", OpPut), Kind: OpPut, Via: "n1", Target: "/k", Value: "n1-0"}},
		Events: Events{{At: time.Second, Kind: KillMembers, Phase: Inject}}, Timeline: 2 * time.Second}
	rec := NewRecorder(time.Now())
	rec.Describe("spring", CallerInfo{Client: "spring", Language: Java, CacheAtStart: true})
	rec.Add(Op{Caller: "spring", Kind: OpCall, Outcome: Fail, ErrClass: ErrNoInstance})
	h.Ops, h.Callers = append(h.Ops, rec.History().Ops...), rec.History().Callers
	var b bytes.Buffer
	if err := WriteHistory(&b, HistoryHeader{Scenario: "s"}, h); err != nil {
		t.Fatal(err)
	}
	hdr, got, err := ReadHistory(&b)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.SchemaVersion != SchemaVersion || len(got.Ops) != 2 || got.Ops[0].Kind != OpPut || got.Ops[0].Via != "n1" ||
		len(got.Events) != 1 || got.Timeline != h.Timeline {
		t.Errorf("read back %+v (schema %d)", got, hdr.SchemaVersion)
	}
	if c := got.Callers["spring"]; c.Language != Java || !c.CacheAtStart || got.Ops[1].ErrClass != ErrNoInstance {
		t.Errorf("callers %+v, op %+v: the caller's description or the error class was lost", got.Callers, got.Ops[1])
	}
}

// TestSchema2GetsKinds reads a history saved before op kinds existed.
func TestSchema2GetsKinds(t *testing.T) {
	tests := []struct {
		caller string
		kind   OpKind
		via    string
	}{
		{"kv/n2/ser-get", OpSerGet, "n2"},
		{"kv/final/get", OpGet, ViaEvery},
		{"kv/n1/delete", "", ""},
		{ReadyOp, OpGate, ""},
		{"keep", "", ""},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		enc := json.NewEncoder(zw)
		_ = enc.Encode(HistoryHeader{SchemaVersion: 2, Scenario: "s"})
		_ = enc.Encode(map[string]any{"op": map[string]any{"caller": tc.caller, "outcome": "ok"}})
		_ = zw.Close()
		_, h, err := ReadHistory(&b)
		if err != nil {
			t.Fatalf("%s: %v", tc.caller, err)
		}
		if op := h.Ops[0]; op.Kind != tc.kind || op.Via != tc.via {
			t.Errorf("%s: kind %q via %q, want %q via %q", tc.caller, op.Kind, op.Via, tc.kind, tc.via)
		}
	}
}

func TestUnknownSchemaIsRefused(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_ = json.NewEncoder(zw).Encode(HistoryHeader{SchemaVersion: 1})
	_ = zw.Close()
	if _, _, err := ReadHistory(&b); err == nil {
		t.Error("a schema-1 history was read")
	}
}

// TestSavedHistoryCarriesTheRunsMeta: the header keeps the run's meta (the
// real systems it ran); a header saved without one reads with none.
func TestSavedHistoryCarriesTheRunsMeta(t *testing.T) {
	meta := &Meta{Etcd: "v3.7.2", World: World{Server: "Nacos server 3.1.0-bugfix",
		Components: []Component{{Name: "nacos-client", Version: "3.1.1"}}}}
	var b bytes.Buffer
	if err := WriteHistory(&b, HistoryHeader{Scenario: "nacos-incident", Meta: meta}, &History{}); err != nil {
		t.Fatal(err)
	}
	hdr, _, err := ReadHistory(&b)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Meta == nil || hdr.Meta.Server != meta.Server || len(hdr.Meta.Components) != 1 {
		t.Errorf("header meta read back as %+v", hdr.Meta)
	}
	b.Reset()
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(`{"schema_version":3,"scenario":"s","args":[],"seed":1}` + "\n"))
	_ = zw.Close()
	if hdr, _, err := ReadHistory(&b); err != nil || hdr.Meta != nil {
		t.Errorf("an old header: meta %+v, err %v", hdr.Meta, err)
	}
}
