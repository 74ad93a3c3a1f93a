package xds

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestClientStartsWhileControlPlaneDown starts a client before its control
// plane, then the control plane with no snapshot (the stream up, nothing
// answered): until then its calls fail fast with the connection error
// (gRFC A71: watchers of uncached resources are told), then the listener is
// declared missing WatchExpiry after the stream came up, not after the
// client started (gRFC A57; grpc-go ads_stream.go
// starts the timer when the request is written on a stream). Once the
// control plane follows the registry the client serves every instance.
func TestClientStartsWhileControlPlaneDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd cluster, a control plane and an xDS client: skipped under -short")
	}
	w := startRegistry(t, testPortBase+100)
	port, err := w.alloc.Take("xds control plane")
	if err != nil {
		t.Fatal(err)
	}
	set := DefaultControlPlaneSettings("api")
	set.Start = NoSnapshot
	if w.cp, err = NewControlPlane(w.sup, "xds-cp", w.dir, port, w.etcd.Endpoints(), set); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	w.plain = w.startClient(t, "xds-client", w.cp, false)
	time.Sleep(5 * time.Second)
	t.Logf("with no control plane: %s", describe(w.plain, started, time.Now().Add(-testCallTimeout)))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cpAt := time.Now()
	if err := w.cp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	up := w.waitStreams(t, 1, ReconnectWithin(cpAt.Sub(started))+time.Second)
	t.Logf("control plane up %.1f s after the client; the client's stream %.1f s later", cpAt.Sub(started).Seconds(), up.Sub(cpAt).Seconds())
	time.Sleep(WatchExpiry + 3*time.Second)
	// grpc-go v1.84.0 words the expiry like a deletion: authority.go
	// handleADSResourceDoesNotExist, "xds: resource %q of type %q has been removed".
	gone, ok := firstEnd(w.plain, up.Add(-time.Second), "has been removed")
	if !ok {
		t.Fatalf("no call failed with the listener missing by %.1f s after the stream came up: %s", time.Since(up).Seconds(), describe(w.plain, up, time.Now()))
	}
	after := gone.Sub(up)
	t.Logf("listener declared missing %.2f s after the stream came up (%.2f s after the client started); rule %s",
		after.Seconds(), gone.Sub(started).Seconds(), WatchExpiry)
	if lo, hi := WatchExpiry-500*time.Millisecond, WatchExpiry+2*time.Second; after < lo || after > hi {
		t.Errorf("does-not-exist %.2f s after the stream came up, want within [%s, %s]", after.Seconds(), lo, hi)
	}
	if err := w.cp.Follow(); err != nil {
		t.Fatal(err)
	}
	w.waitServing(t, w.addrs(0, 1, 2), 30*time.Second)
}

// firstEnd returns when the first call after t0 ended with an error
// containing text.
func firstEnd(c *Client, t0 time.Time, text string) (time.Time, bool) {
	for _, l := range c.Calls(t0, time.Now()) {
		if l.Outcome != OutcomeOK && strings.Contains(l.Err, text) {
			return l.End, true
		}
	}
	return time.Time{}, false
}

// describe sums c's calls in [from, to) and quotes the last error.
func describe(c *Client, from, to time.Time) string {
	calls := c.Calls(from, to)
	tl := TallyOf(calls)
	last := "no error"
	for _, l := range calls {
		if l.Outcome != OutcomeOK {
			last = l.Err
		}
	}
	return fmt.Sprintf("%d ok over %v, %d failed (last error: %s)", tl.OK, tl.TargetList(), tl.Fail, last)
}
