package history

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// HistoryHeader is the first line of a saved history: what produced it, so
// that recheck can rebuild the scenario's configuration and judge again.
type HistoryHeader struct {
	SchemaVersion int      `json:"schema_version"`
	Scenario      string   `json:"scenario"`
	Args          []string `json:"args"`
	Seed          int64    `json:"seed"`
	// Meta is the run's metadata, the real components it ran included
	// (absent in histories saved before it was recorded).
	Meta *Meta `json:"meta,omitempty"`
}

// historyLine is one line of a saved history after the header: exactly one field is set.
type historyLine struct {
	Op       *Op                   `json:"op,omitempty"`
	Event    *Event                `json:"event,omitempty"`
	Timeline *time.Duration        `json:"timeline_ns,omitempty"`
	Data     json.RawMessage       `json:"data,omitempty"`
	Callers  map[string]CallerInfo `json:"callers,omitempty"`
	// Experiment is the run's experiment written as data.
	Experiment json.RawMessage `json:"experiment,omitempty"`
}

// WriteHistory writes h as gzipped JSON lines: the header, one line per op
// and per event, the timeline's length and the scenario's data.
func WriteHistory(w io.Writer, hdr HistoryHeader, h *History) error {
	zw := gzip.NewWriter(w)
	enc := json.NewEncoder(zw)
	hdr.SchemaVersion = SchemaVersion
	lines := []any{hdr}
	for i := range h.Ops {
		lines = append(lines, historyLine{Op: &h.Ops[i]})
	}
	for i := range h.Events {
		lines = append(lines, historyLine{Event: &h.Events[i]})
	}
	lines = append(lines, historyLine{Timeline: &h.Timeline})
	if len(h.Data) > 0 {
		lines = append(lines, historyLine{Data: h.Data})
	}
	if len(h.Callers) > 0 {
		lines = append(lines, historyLine{Callers: h.Callers})
	}
	if len(h.Experiment) > 0 {
		lines = append(lines, historyLine{Experiment: h.Experiment})
	}
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return fmt.Errorf("writing the history: %w", err)
		}
	}
	return zw.Close()
}

// ReadHistory reads a history written by WriteHistory.
func ReadHistory(r io.Reader) (HistoryHeader, *History, error) {
	var hdr HistoryHeader
	zr, err := gzip.NewReader(r)
	if err != nil {
		return hdr, nil, fmt.Errorf("reading the history: %w", err)
	}
	dec := json.NewDecoder(bufio.NewReader(zr))
	if err := dec.Decode(&hdr); err != nil {
		return hdr, nil, fmt.Errorf("reading the history's header: %w", err)
	}
	if hdr.SchemaVersion != SchemaVersion && hdr.SchemaVersion != 2 {
		return hdr, nil, fmt.Errorf("history schema %d, this harness reads 2 and %d", hdr.SchemaVersion, SchemaVersion)
	}
	h, err := readLines(dec)
	if err == nil && hdr.SchemaVersion == 2 {
		upgrade2(h.Ops)
	}
	return hdr, h, err
}

// readLines reads the lines after the header.
func readLines(dec *json.Decoder) (*History, error) {
	h := &History{}
	for {
		var l historyLine
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			return h, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the history: %w", err)
		}
		switch {
		case l.Op != nil:
			h.Ops = append(h.Ops, *l.Op)
		case l.Event != nil:
			h.Events = append(h.Events, *l.Event)
		case l.Timeline != nil:
			h.Timeline = *l.Timeline
		case len(l.Data) > 0:
			h.Data = l.Data
		case len(l.Callers) > 0:
			h.Callers = l.Callers
		case len(l.Experiment) > 0:
			h.Experiment = l.Experiment
		}
	}
}

// upgrade2 gives the ops of a schema-2 history (which had no op kinds) the
// kind and node their recorders now set: the key-value ops, whose labels
// were "kv/<member>/<kind>", and the gate ops. This is the one place a
// caller label is read, and only for histories saved before kinds existed.
func upgrade2(ops []Op) {
	for i, op := range ops {
		if op.Kind != "" {
			continue
		}
		if rest, ok := strings.CutPrefix(op.Caller, KVPrefix); ok {
			via, kind, _ := strings.Cut(rest, "/")
			switch k := OpKind(kind); k {
			case OpPut, OpGet, OpSerGet:
				ops[i].Kind, ops[i].Via = k, via
			}
			continue
		}
		if op.Caller == ReadyOp || op.Caller == ClientOp {
			ops[i].Kind = OpGate
		}
	}
}
