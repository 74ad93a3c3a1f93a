package eurekamodel

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// RequestType is the kind of client request, which decides the statuses
// that count as answered (ServerStatusEvaluators.legacyEvaluator).
type RequestType int

// Request types.
const (
	ReqRegister RequestType = iota
	ReqHeartbeat
	ReqCancel
	ReqFetch
)

// accept is the legacy evaluator: 2xx and 302 are answers; so is 404 to a
// register or a heartbeat (the caller re-registers), and anything to a
// cancel (best effort). Everything else is retried on another server.
func accept(status int, rt RequestType) bool {
	switch {
	case status >= 200 && status < 300 || status == http.StatusFound:
		return true
	case status == http.StatusNotFound && (rt == ReqRegister || rt == ReqHeartbeat):
		return true
	case rt == ReqCancel:
		return true
	}
	return false
}

// Attempt is one try of a request on one server.
type Attempt struct {
	Server string `json:"server"`
	Status int    `json:"status,omitempty"`
	Err    string `json:"err,omitempty"`
}

// OK reports whether the attempt was answered.
func (a Attempt) OK(rt RequestType) bool { return a.Err == "" && accept(a.Status, rt) }

// ErrAllFailed is returned (wrapped) when no attempt of a request was answered.
var ErrAllFailed = errors.New("no eureka server answered")

// Retryable is RetryableEurekaHttpClient: up to retries attempts per
// request; it sticks to the last server that answered; a server picked from
// the candidate list that fails is quarantined (the sticky server, when it
// fails, is only dropped, not quarantined — as in the source). Candidates
// are the configured servers minus the quarantined ones, unless at least
// (int)(servers × refresh) are quarantined, which clears the quarantine.
// Safe for concurrent use.
type Retryable struct {
	servers    []string
	retries    int
	refresh    float64
	mu         sync.Mutex
	sticky     string
	quarantine map[string]bool
}

// NewRetryable returns a client over servers, in the order given (the
// source shuffles the list once per client; callers pass it shuffled).
func NewRetryable(servers []string, retries int, refresh float64) *Retryable {
	return &Retryable{servers: append([]string(nil), servers...), retries: retries, refresh: refresh,
		quarantine: map[string]bool{}}
}

// Sticky returns the server the client currently sticks to ("" if none).
func (r *Retryable) Sticky() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sticky
}

// Quarantined returns the quarantined servers, in configured order.
func (r *Retryable) Quarantined() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.servers {
		if r.quarantine[s] {
			out = append(out, s)
		}
	}
	return out
}

// Execute runs do on up to retries servers until one answers (see accept)
// and returns the answering status and every attempt. do returns the HTTP
// status or an error.
func (r *Retryable) Execute(rt RequestType, do func(server string) (int, error)) (int, []Attempt, error) {
	var cands []string
	idx := 0
	var attempts []Attempt
	for range r.retries {
		server, fromList := r.Sticky(), false
		if server == "" {
			if cands == nil {
				cands = r.candidates()
			}
			if idx >= len(cands) {
				return 0, attempts, fmt.Errorf("cannot execute request on any known server: %w", ErrAllFailed)
			}
			server, fromList = cands[idx], true
			idx++
		}
		a := attempt(server, do)
		attempts = append(attempts, a)
		if a.OK(rt) {
			r.stick(server)
			return a.Status, attempts, nil
		}
		r.failed(server, fromList)
	}
	return 0, attempts, fmt.Errorf("retry limit reached: %w", ErrAllFailed)
}

func attempt(server string, do func(string) (int, error)) Attempt {
	status, err := do(server)
	a := Attempt{Server: server, Status: status}
	if err != nil {
		a.Err = err.Error()
	}
	return a
}

func (r *Retryable) stick(server string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sticky = server
}

// failed drops the sticky server if it is server, and quarantines server if
// it came from the candidate list.
func (r *Retryable) failed(server string, fromList bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sticky == server {
		r.sticky = ""
	}
	if fromList {
		r.quarantine[server] = true
	}
}

// candidates is getHostCandidates().
func (r *Retryable) candidates() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	threshold := int(float64(len(r.servers)) * r.refresh)
	switch {
	case len(r.quarantine) == 0:
		return append([]string(nil), r.servers...)
	case len(r.quarantine) >= threshold:
		clear(r.quarantine)
		return append([]string(nil), r.servers...)
	}
	var out []string
	for _, s := range r.servers {
		if !r.quarantine[s] {
			out = append(out, s)
		}
	}
	return out
}
