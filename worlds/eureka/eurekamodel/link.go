package eurekamodel

import (
	"net/http"
	"sync/atomic"
	"time"
)

// Link is a switch on the network path between a group of clients and every
// server: while blocked, each request of those clients hangs until its
// connect timeout and fails as a timeout, as with packets dropped by a
// firewall. The servers still reach each other (replication does not go
// through a Link), and other clients are not affected.
//
// It is a model-level partition, chosen over a TCP proxy so that one run can
// cut 50 workers off while a scheduler on the same host still fetches.
type Link struct{ blocked atomic.Bool }

// Block cuts the clients off the servers.
func (l *Link) Block() { l.blocked.Store(true) }

// Unblock heals the partition.
func (l *Link) Unblock() { l.blocked.Store(false) }

// Blocked reports whether the link is cut.
func (l *Link) Blocked() bool { return l != nil && l.blocked.Load() }

// linkTransport sends requests through base unless the link is cut.
type linkTransport struct {
	base    http.RoundTripper
	link    *Link
	connect time.Duration // real time
}

func (t linkTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.link.Blocked() {
		return t.base.RoundTrip(req)
	}
	timer := time.NewTimer(t.connect)
	defer timer.Stop()
	select {
	case <-req.Context().Done():
		return nil, req.Context().Err()
	case <-timer.C:
		return nil, droppedError{}
	}
}

// droppedError is the error of a request on a cut link: a connect timeout.
type droppedError struct{}

func (droppedError) Error() string   { return "dial tcp: i/o timeout (packets dropped by the partition)" }
func (droppedError) Timeout() bool   { return true }
func (droppedError) Temporary() bool { return true }
