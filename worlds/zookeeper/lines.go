package zookeeper

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Outcome is how a call ended (docs/real-clients.md): a timed-out call is
// unknown, not failed.
type Outcome string

// The outcomes.
const (
	OK      Outcome = "ok"
	Fail    Outcome = "fail"
	Unknown Outcome = "unknown"
)

// Call is one call a Java caller made.
type Call struct {
	// Scheduled is when the call was due (open loop), Start and End when it
	// really ran.
	Scheduled time.Time `json:"scheduled"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	// Target is the instance called (host:port), "" when the client gave none.
	Target  string  `json:"target"`
	Outcome Outcome `json:"outcome"`
	Err     string  `json:"err"`
}

// EventKind names a caller's event line.
type EventKind string

// The event kinds.
const (
	// EventConnection: a Curator connection state change (Event.State).
	EventConnection EventKind = "connection"
	// EventInstances: the caller's ServiceCache changed; Count instances.
	EventInstances EventKind = "instances"
	// EventStarted: the client is built and the calls begin; Detail names its
	// settings.
	EventStarted EventKind = "started"
	// EventReady: the client is built and waits for the harness's gate
	// (JavaCallerSpec.Gate) to learn when its calls start and end.
	EventReady EventKind = "ready"
)

// Event is something a caller's client reported other than a call.
type Event struct {
	Kind   EventKind `json:"event"`
	Time   time.Time `json:"time"`
	State  ConnState `json:"state"`
	Count  int       `json:"count"`
	Detail string    `json:"detail"`
}

// errMalformed is returned (wrapped) for a line that is neither a call nor an
// event of the protocol.
var errMalformed = errors.New("malformed line")

// DecodeLine decodes one protocol line into a call or an event.
func DecodeLine(b []byte) (*Call, *Event, error) {
	var probe struct {
		Event   EventKind `json:"event"`
		Outcome Outcome   `json:"outcome"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, nil, fmt.Errorf("%w %q: %v", errMalformed, b, err)
	}
	switch {
	case probe.Event == EventConnection || probe.Event == EventInstances || probe.Event == EventStarted || probe.Event == EventReady:
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, nil, fmt.Errorf("%w %q: %v", errMalformed, b, err)
		}
		if e.Kind == EventConnection && !knownConnState(e.State) {
			return nil, nil, fmt.Errorf("%w %q: unknown connection state %q", errMalformed, b, e.State)
		}
		return nil, &e, nil
	case probe.Outcome == OK || probe.Outcome == Fail || probe.Outcome == Unknown:
		var c Call
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, nil, fmt.Errorf("%w %q: %v", errMalformed, b, err)
		}
		return &c, nil, nil
	}
	return nil, nil, fmt.Errorf("%w %q: neither a call nor an event", errMalformed, b)
}

func knownConnState(s ConnState) bool {
	switch s {
	case Connected, Suspended, Lost, Reconnected, ReadOnly:
		return true
	}
	return false
}

// Result is everything a caller printed.
type Result struct {
	Calls  []Call
	Events []Event
	// Other counts lines outside the protocol (the clients' console log).
	Other int
}

// Connections returns the connection state changes, in order.
func (r Result) Connections() []Event {
	var out []Event
	for _, e := range r.Events {
		if e.Kind == EventConnection {
			out = append(out, e)
		}
	}
	return out
}

// Count returns how many calls ended with o.
func (r Result) Count(o Outcome) int {
	n := 0
	for _, c := range r.Calls {
		if c.Outcome == o {
			n++
		}
	}
	return n
}
