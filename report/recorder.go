package report

import (
	"sort"
	"sync"
	"time"
)

// Recorder collects ops and fault marks of one run against a shared time
// zero. Callers only append; tables are built from Ops and Marks afterwards.
// Safe for concurrent use.
type Recorder struct {
	t0    time.Time
	mu    sync.Mutex
	ops   []Op
	marks []Mark
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
	r.mu.Unlock()
}

// MarkAt records a fault mark at time t.
func (r *Recorder) MarkAt(t time.Time, label string) {
	r.mu.Lock()
	r.marks = append(r.marks, Mark{At: r.Offset(t), Label: label})
	r.mu.Unlock()
}

// Ops returns a copy of the ops sorted by scheduled time.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	out := append([]Op(nil), r.ops...)
	r.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Scheduled < out[j].Scheduled })
	return out
}

// Marks returns a copy of the marks sorted by time.
func (r *Recorder) Marks() []Mark {
	r.mu.Lock()
	out := append([]Mark(nil), r.marks...)
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

// MarkNamed returns the first mark whose label starts with prefix.
func MarkNamed(marks []Mark, prefix string) (Mark, bool) {
	for _, m := range marks {
		if len(m.Label) >= len(prefix) && m.Label[:len(prefix)] == prefix {
			return m, true
		}
	}
	return Mark{}, false
}
