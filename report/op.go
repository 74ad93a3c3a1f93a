// Package report turns what a run recorded (operations and fault marks) into
// per-second tables, metrics and checks, and renders them as a terminal
// table, markdown or JSON. Everything here is a pure function of its inputs,
// so it is tested without etcd.
package report

import (
	"fmt"
	"time"
)

// Outcome is the result of one recorded operation. Three outcomes, not two:
// a call that timed out may or may not have taken effect.
type Outcome int

const (
	// OK means the call succeeded.
	OK Outcome = iota
	// Fail means the call definitely failed (refused, error reply, no instance).
	Fail
	// Unknown means the call hit its deadline; its effect is unknown.
	Unknown
)

// String returns "ok", "fail" or "unknown".
func (o Outcome) String() string {
	switch o {
	case OK:
		return "ok"
	case Fail:
		return "fail"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// MarshalText encodes the outcome as its String form.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Op is one recorded call. Times are offsets from the run's time zero.
// Scheduled is when the open-loop schedule wanted the call sent; it decides
// the second the call is counted in, so a late send never moves a call into
// the next second.
type Op struct {
	Caller    string        `json:"caller"`
	Seq       int           `json:"seq"`
	Scheduled time.Duration `json:"scheduled_ns"`
	Start     time.Duration `json:"start_ns"`
	End       time.Duration `json:"end_ns"`
	Target    string        `json:"target,omitempty"`
	Outcome   Outcome       `json:"outcome"`
	Err       string        `json:"err,omitempty"`
}

// Latency returns End - Start.
func (o Op) Latency() time.Duration { return o.End - o.Start }

// Mark is a fault event on the run's timeline (offset from time zero).
type Mark struct {
	At    time.Duration `json:"at_ns"`
	Label string        `json:"label"`
}

// Second returns the 0-based second the mark falls in.
func (m Mark) Second() int { return int(m.At / time.Second) }
