package history

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
	Caller string `json:"caller"`
	// Kind says what the op did and Via which node (a registry member, a
	// server) it went through: judges select ops by these, never by
	// parsing Caller, which is a label.
	Kind      OpKind        `json:"kind,omitempty"`
	Via       string        `json:"via,omitempty"`
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
	// ErrClass says why a failed call failed, as its caller classified it
	// when it recorded the call (empty where the caller does not classify).
	ErrClass ErrClass `json:"err_class,omitempty"`
	// Paced marks a send of open-loop traffic (a caller's request, a
	// scheduler's task): the schedule gate judges how late these started.
	Paced bool `json:"paced,omitempty"`
}

// OpKind says what an op did.
type OpKind string

// The op kinds the harness records.
const (
	// OpCall is a request to a service instance (a policy caller's, a real
	// client's, a user's client's): Target the instance.
	OpCall OpKind = "call"
	// OpTask is a scheduler's task sent to a worker: Count the tries.
	OpTask OpKind = "task"
	// OpRefresh is a caller's read of the instance list: Count the
	// instances listed.
	OpRefresh OpKind = "refresh"
	// OpPut, OpGet and OpSerGet are key-value operations for the
	// linearizability check: Via the member, Target the key, Value the
	// value written or read ("" for an absent key). A put writes a value
	// no other put writes; OpGet is a linearizable read, OpSerGet a
	// serializable one.
	OpPut    OpKind = "put"
	OpGet    OpKind = "get"
	OpSerGet OpKind = "ser-get"
	// OpProbe is a probe of the world's state (a read, a count, a wait):
	// Via the node it asked where one was, Target what it read.
	OpProbe OpKind = "probe"
	// OpGate is what a rig records for a generic gate (ReadyOp, ClientOp).
	OpGate OpKind = "gate"
	// OpNemesis is an action of an external nemesis (Target the member).
	OpNemesis OpKind = "nemesis"
	// OpRegister is an instance's registration with the registry (a lease
	// and its key, a session and its node, a registration request): Target
	// the instance; the first one and every re-registration.
	OpRegister OpKind = "register"
	// OpListed is a count of the instances the registry lists, sampled
	// while the run goes on: Count the instances.
	OpListed OpKind = "listed"
	// OpSample is one measurement of a pure-registry or simulation
	// experiment (an expiry pass, a registration seen).
	OpSample OpKind = "sample"
	// OpState is a change a real client reported in its own state (a
	// Curator client's connection state, the size of its cache): Target
	// what changed ("connection", "instances"), Value the new state, Count
	// the instances it holds; Start and End are the time it was reported.
	OpState OpKind = "state"
)

// ViaEvery is the Via of an op sent through every member at once (the
// key-value reads after healing).
const ViaEvery = "final"

// KVPrefix starts the caller name of every key-value op.
const KVPrefix = "kv/"

// KVCaller is the caller label of key-value ops of kind through via:
// "kv/n1/put" (a label for tables and lanes; judges read Kind and Via).
func KVCaller(via string, k OpKind) string { return KVPrefix + via + "/" + string(k) }

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

// FindOp returns the first op of caller.
func FindOp(ops []Op, caller string) (Op, bool) {
	for _, op := range ops {
		if op.Caller == caller {
			return op, true
		}
	}
	return Op{}, false
}

// The ops a rig records for the generic gates (report.Gates judges them).
const (
	// ReadyOp is the op a plan records when it checked, before the first
	// fault, that the registry was healthy and every instance registered.
	ReadyOp = "gate/ready"
	// ClientOp is the op a user's client (--client exec:) leaves: Count
	// malformed lines, Value lines read, Outcome fail when it exited early.
	ClientOp = "gate/client"
	// WakeOp is the op a scaled-time run leaves from its wake probe (and,
	// as WakeOp + "/" + name, from each server process's own probe): Seq
	// wake-ups, Count of them later than Value (a duration: the allowance
	// its bands take for one wake-up), Scheduled and Start the latest one's
	// due and actual time.
	WakeOp = "gate/wake"
)
