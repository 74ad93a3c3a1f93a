package xds

import "time"

// Outcome is how one call ended, as the harness's line protocol spells it.
type Outcome string

// The outcomes a client reports.
const (
	OutcomeOK   Outcome = "ok"
	OutcomeFail Outcome = "fail"
)

// CallLine is one call, one JSON line on the client's stdout: the line
// protocol of the harness's exec clients (rig/execclient.go, execLine),
// so the rig records one op per call.
type CallLine struct {
	Scheduled *time.Time `json:"scheduled,omitempty"`
	Start     time.Time  `json:"start"`
	End       time.Time  `json:"end"`
	// Target is the instance the call went to ("" when none was picked).
	Target  string  `json:"target"`
	Outcome Outcome `json:"outcome"`
	Err     string  `json:"err,omitempty"`
}
