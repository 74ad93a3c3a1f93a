package history

// Language is the language a caller's client is written in.
type Language string

// The languages of the callers' clients.
const (
	Java Language = "java"
	Go   Language = "go"
)

// CallerInfo describes one caller as its world started it: which client,
// in what language, and what stands between it and an empty list. Judges
// read these fields, never the caller's name, which is a label.
type CallerInfo struct {
	// Client names the client library and its integration, one of the
	// world's constants).
	Client string `json:"client"`
	// Language is the client's language.
	Language Language `json:"language"`
	// CacheAtStart: the client loads its disk cache when it starts.
	CacheAtStart bool `json:"cache_at_start"`
	// EmptyProtection: the client keeps its list when the registry pushes
	// or answers an empty one.
	EmptyProtection bool `json:"empty_protection"`
	// StaleFallback: the load balancer falls back to the last non-empty
	// list when its discovery client answers an empty one.
	StaleFallback bool `json:"stale_fallback"`
}

// ErrClass says why a call failed, as the caller saw it when it recorded
// the call: judges select failures by it, never by the error's text.
type ErrClass string

// The error classes of a failed call.
const (
	// ErrNoInstance: the client had no instance to call (its list was
	// empty).
	ErrNoInstance ErrClass = "no-instance"
	// ErrRegistry: the client could not read the registry (not connected,
	// no answer) and had no cached list to fall back on.
	ErrRegistry ErrClass = "registry"
	// ErrInstance: the instance called failed or did not answer.
	ErrInstance ErrClass = "instance"
	// ErrOther: any other failure.
	ErrOther ErrClass = "other"
)

// The kinds of the ops a caller's client reports besides its calls,
// recorded under ClientLabel(caller).
const (
	// OpStart: the client was built and its calls begin (Value: the client
	// and its switches, as the client reported them).
	OpStart OpKind = "start"
	// OpSetup: a setup step of the client before its calls (its listener's
	// subscribe) failed (Outcome fail, Err why).
	OpSetup OpKind = "setup"
	// OpNotify: the client's listener saw the instance list change (Count
	// instances).
	OpNotify OpKind = "notify"
	// OpExit: the caller's process ended: Outcome fail with Err when it
	// ended early or with an error; Value "killed" when a fault killed it;
	// Count the lines it printed that were neither a call nor a report.
	OpExit OpKind = "exit"
)

// ExitKilled is the Value of an OpExit op of a process a fault killed.
const ExitKilled = "killed"

// ClientSuffix is appended to a caller's name for its client's reports.
const ClientSuffix = "/client"

// ClientLabel is the caller label of the reports of caller's client: its
// start, setup, list changes and exit (a label for tables and lanes;
// judges select these ops by it and by their Kind).
func ClientLabel(caller string) string { return caller + ClientSuffix }

// Describe records what caller is (its world calls it once per caller).
func (r *Recorder) Describe(caller string, info CallerInfo) {
	r.mu.Lock()
	if r.callers == nil {
		r.callers = map[string]CallerInfo{}
	}
	r.callers[caller] = info
	r.mu.Unlock()
}

// Callers returns a copy of the callers described so far (nil for none).
func (r *Recorder) Callers() map[string]CallerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.callers) == 0 {
		return nil
	}
	out := make(map[string]CallerInfo, len(r.callers))
	for k, v := range r.callers {
		out[k] = v
	}
	return out
}
