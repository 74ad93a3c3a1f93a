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
	// Value is what the call returned where that matters to a judge (a
	// read's value); Count is how many items it returned (instances listed,
	// keys counted, a lease's remaining seconds).
	Value   string  `json:"value,omitempty"`
	Count   int     `json:"count,omitempty"`
	Outcome Outcome `json:"outcome"`
	Err     string  `json:"err,omitempty"`
	// Paced marks a send of open-loop traffic (a caller's request, a
	// scheduler's task): the schedule gate judges how late these started.
	Paced bool `json:"paced,omitempty"`
}

// Latency returns End - Start.
func (o Op) Latency() time.Duration { return o.End - o.Start }

// UnmarshalText decodes "ok", "fail" or "unknown".
func (o *Outcome) UnmarshalText(b []byte) error {
	for _, v := range []Outcome{OK, Fail, Unknown} {
		if v.String() == string(b) {
			*o = v
			return nil
		}
	}
	return fmt.Errorf("unknown outcome %q", b)
}
