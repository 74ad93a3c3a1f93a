package nacos

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Outcomes of a call (docs/real-clients.md): a timed-out call is unknown, not failed.
const (
	OK      = "ok"
	Fail    = "fail"
	Unknown = "unknown"
)

// Call is one call a caller made.
type Call struct {
	// Scheduled is when the call was due (open loop), Start and End when it really ran.
	Scheduled time.Time `json:"scheduled"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	// Target is the instance called (host:port), "" when the client gave none.
	Target string `json:"target"`
	// Outcome is OK, Fail or Unknown; Err the error text; Class why a call
	// that was not ok failed (a history.ErrClass, set by the caller where
	// the call failed: by the exception's type in the Java callers).
	Outcome string `json:"outcome"`
	Err     string `json:"err"`
	Class   string `json:"class"`
}

// Event kinds.
const (
	// EventInstances: the client's listener saw the service's list change; Count instances.
	EventInstances = "instances"
	// EventStarted: the client is built and the calls begin; Detail names the switches.
	EventStarted = "started"
	// EventReady: a gated caller's client is built and warmed up and waits for its gate
	// (JavaCallerSpec.Gated); not recorded.
	EventReady = "ready"
	// EventSetupFailed: a restarted caller's setup step (its listener's subscribe) failed and
	// the caller went on; Detail names the step and the error.
	EventSetupFailed = "setup-failed"
)

// Event is something a caller's client reported other than a call.
type Event struct {
	Kind   string    `json:"event"`  // EventInstances, EventStarted or EventSetupFailed
	Time   time.Time `json:"time"`   // when the client reported it
	Count  int       `json:"count"`  // instances in the new list (EventInstances)
	Detail string    `json:"detail"` // the client and its switches (EventStarted), the error (EventSetupFailed)
}

// errMalformed is returned (wrapped) for a line that is neither a call nor an event.
var errMalformed = errors.New("malformed line")

// decodeLine decodes one protocol line into a call or an event.
func decodeLine(b []byte) (*Call, *Event, error) {
	var probe struct {
		Event   string `json:"event"`
		Outcome string `json:"outcome"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, nil, fmt.Errorf("%w %q: %v", errMalformed, b, err)
	}
	switch {
	case probe.Event != "":
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, nil, fmt.Errorf("%w %q: %v", errMalformed, b, err)
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
