package nacosreal

import (
	"sync"
	"time"
)

// record collects a caller's calls and events; safe for concurrent use.
type record struct {
	mu     sync.Mutex
	calls  []Call
	events []Event
	bad    int
}

func (r *record) call(c Call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

func (r *record) event(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// dropEndedAfter removes the calls that ended after t.
func (r *record) dropEndedAfter(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.calls[:0]
	for _, c := range r.calls {
		if !c.End.After(t) {
			kept = append(kept, c)
		}
	}
	r.calls = kept
}

func (r *record) malformed() {
	r.mu.Lock()
	r.bad++
	r.mu.Unlock()
}

// Result is what a caller recorded.
type Result struct {
	Calls  []Call  // every call, in the order they ended
	Events []Event // every list change and the started event
	// Other counts stdout lines that were neither a call nor an event (the JVM's console log,
	// appended to the caller's log file; Java callers only).
	Other int
}

func (r *record) result() Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Result{Calls: append([]Call(nil), r.calls...), Events: append([]Event(nil), r.events...), Other: r.bad}
}
