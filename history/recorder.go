package history

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Recorder collects the ops and typed events of one run against a shared
// time zero. Callers only append; tables are built from Ops and Events
// afterwards.
// Safe for concurrent use.
type Recorder struct {
	t0      time.Time
	mu      sync.Mutex
	ops     []Op
	events  Events
	tally   map[string][2]int
	onEvent func(Event)
	callers map[string]CallerInfo
}

// NewRecorder returns a recorder whose time zero is t0.
func NewRecorder(t0 time.Time) *Recorder { return &Recorder{t0: t0} }

// T0 returns the run's time zero.
func (r *Recorder) T0() time.Time { return r.t0 }

// Offset returns t - T0.
func (r *Recorder) Offset(t time.Time) time.Duration { return t.Sub(r.t0) }

// Add appends an op.
func (r *Recorder) Add(op Op) {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	if op.Paced {
		if r.tally == nil {
			r.tally = map[string][2]int{}
		}
		t := r.tally[op.Caller]
		if op.Outcome == OK {
			t[0]++
		} else {
			t[1]++
		}
		r.tally[op.Caller] = t
	}
	r.mu.Unlock()
}

// Event records e at time t (e.At is set from t).
func (r *Recorder) Event(t time.Time, e Event) {
	e.At = r.Offset(t)
	r.mu.Lock()
	r.events = append(r.events, e)
	watch := r.onEvent
	r.mu.Unlock()
	if watch != nil {
		watch(e)
	}
}

// Watch makes the recorder call onEvent with each event as it is recorded
// (live progress); onEvent must not call the recorder.
func (r *Recorder) Watch(onEvent func(Event)) {
	r.mu.Lock()
	r.onEvent = onEvent
	r.mu.Unlock()
}

// Tally returns, per caller, the paced sends recorded so far: ok and failed.
func (r *Recorder) Tally() map[string][2]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][2]int, len(r.tally))
	for k, v := range r.tally {
		out[k] = v
	}
	return out
}

// Ops returns a copy of the ops sorted by scheduled time.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	out := append([]Op(nil), r.ops...)
	r.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Scheduled < out[j].Scheduled })
	return out
}

// Events returns a copy of the events sorted by time.
func (r *Recorder) Events() Events {
	r.mu.Lock()
	out := append(Events(nil), r.events...)
	r.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// Filter returns the ops of one caller.
func Filter(ops []Op, caller string) []Op {
	var out []Op
	for _, op := range ops {
		if op.Caller == caller {
			out = append(out, op)
		}
	}
	return out
}

// History is what one run recorded: its ops and typed events. Judges are
// pure functions of a History (and the scenario's parameters).
type History struct {
	Ops    []Op   `json:"ops"`
	Events Events `json:"events"`
	// Timeline is the length of the run's measured timeline.
	Timeline time.Duration `json:"timeline_ns"`
	// Data holds what a scenario measured beyond ops and events (server
	// histories, simulation counts), as the scenario's own JSON.
	Data json.RawMessage `json:"data,omitempty"`
	// Callers describes the run's callers, by name, as their world
	// started them (nil when the world described none).
	Callers map[string]CallerInfo `json:"callers,omitempty"`
	// Experiment is the experiment written as data that the run ran (the
	// registry and package experiment's value, as JSON), so that a judge
	// can be run again from the history alone; empty for a scenario
	// written in Go.
	Experiment json.RawMessage `json:"experiment,omitempty"`
}

// SetData stores v (a scenario's typed record) as the history's Data.
func (h *History) SetData(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding the run's data: %w", err)
	}
	h.Data = b
	return nil
}

// DataInto decodes the history's Data into v.
func (h *History) DataInto(v any) error {
	if len(h.Data) == 0 {
		return fmt.Errorf("the history holds no data")
	}
	if err := json.Unmarshal(h.Data, v); err != nil {
		return fmt.Errorf("decoding the run's data: %w", err)
	}
	return nil
}

// History returns a copy of what was recorded so far.
func (r *Recorder) History() History {
	return History{Ops: r.Ops(), Events: r.Events(), Callers: r.Callers()}
}
