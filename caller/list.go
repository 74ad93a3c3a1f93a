// Package caller drives open-loop traffic at a fixed rate over a cached
// instance list that is refreshed from a registry, with the policies the
// articles compare: keep or clear the list on a failed refresh, ignore an
// empty answer, fall back to the last non-empty list, and passive ejection.
package caller

import (
	"errors"
	"slices"
	"sync"
	"time"
)

// Endpoint is one instance as the registry lists it.
type Endpoint struct {
	ID, Addr string
}

// OnRefreshError says what a failed refresh does to the cached list.
type OnRefreshError int

const (
	// KeepList keeps the old list when a refresh fails.
	KeepList OnRefreshError = iota
	// ClearList empties the list when a refresh fails.
	ClearList
)

// OnEmpty says what an empty (successful) refresh answer does.
type OnEmpty int

const (
	// ReplaceWithEmpty replaces the list with the empty answer.
	ReplaceWithEmpty OnEmpty = iota
	// IgnoreEmpty keeps the old list (Nacos push-empty protection).
	IgnoreEmpty
	// StaleFallback replaces the list, but when it is empty the balancer
	// picks from the last non-empty list (the Nacos article's remedy).
	StaleFallback
)

// Policy is a caller's cache policy.
type Policy struct {
	OnError OnRefreshError
	OnEmpty OnEmpty
	// Eject, when positive, skips an instance locally for this long after a
	// failed call to it (passive ejection). If every instance is ejected the
	// balancer uses them all anyway (panic mode, as Envoy does).
	Eject time.Duration
}

// ErrNoInstances is the error of a call made with an empty list.
var ErrNoInstances = errors.New("no instances available")

// List is the cached instance list with round-robin picking. Safe for
// concurrent use.
type List struct {
	policy    Policy
	mu        sync.Mutex
	eps       []Endpoint
	lastFull  []Endpoint
	next      int
	ejectedAt map[string]time.Time
}

// NewList returns an empty list with the given policy.
func NewList(p Policy) *List { return &List{policy: p, ejectedAt: map[string]time.Time{}} }

// Apply applies a refresh result: eps if err is nil, else the failure. It
// reports whether the listed instances changed.
func (l *List) Apply(eps []Endpoint, err error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	before := l.eps
	switch {
	case err != nil:
		if l.policy.OnError == ClearList {
			l.eps = nil
		}
	case len(eps) == 0 && l.policy.OnEmpty == IgnoreEmpty:
	default:
		l.eps = append([]Endpoint(nil), eps...)
		if len(eps) > 0 {
			l.lastFull = l.eps
		}
	}
	return !slices.Equal(before, l.eps)
}

// Len returns the number of listed instances.
func (l *List) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.eps)
}

// Snapshot returns a copy of the current list.
func (l *List) Snapshot() []Endpoint {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Endpoint(nil), l.eps...)
}

// Pick returns the next instance round-robin, skipping ejected ones.
func (l *List) Pick(now time.Time) (Endpoint, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cands := l.eps
	if len(cands) == 0 && l.policy.OnEmpty == StaleFallback {
		cands = l.lastFull
	}
	if len(cands) == 0 {
		return Endpoint{}, ErrNoInstances
	}
	for i := 0; i < len(cands); i++ {
		ep := cands[(l.next+i)%len(cands)]
		if until, ok := l.ejectedAt[ep.Addr]; ok && now.Before(until) {
			continue
		}
		l.next = (l.next + i + 1) % len(cands)
		return ep, nil
	}
	ep := cands[l.next%len(cands)] // all ejected: panic mode
	l.next = (l.next + 1) % len(cands)
	return ep, nil
}

// Report tells the list how a call to ep ended; a failure ejects ep for
// Policy.Eject (if positive).
func (l *List) Report(ep Endpoint, ok bool, now time.Time) {
	if ok || l.policy.Eject <= 0 {
		return
	}
	l.mu.Lock()
	l.ejectedAt[ep.Addr] = now.Add(l.policy.Eject)
	l.mu.Unlock()
}
