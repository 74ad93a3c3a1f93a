package dns

import (
	"context"
	"slices"
	"testing"
	"time"
)

// checkUpstreamKilled kills the server behind the node-local layer: a
// name the layer has not cached is answered SERVFAIL within the forward
// plugin's band, a cached one stale at once; once the upstream is back
// the layer answers the new name when its cached SERVFAIL has expired.
func (w *testWorld) checkUpstreamKilled(t *testing.T) {
	j1 := w.insts.List[0].ID + "." + w.name()
	w.plain.Kill()
	a := w.askName(t, w.local, j1, TypeA)
	servFailed := time.Now()
	b := ForwardServFail()
	t.Logf("CoreDNS local, its upstream killed, A %s (not cached): %s in %.2f s (band [%.1f, %.1f] s)", j1, a.Rcode, a.Took.Seconds(), b.Lo, b.Hi)
	if a.Rcode != ServFail || a.Took.Seconds() > b.Hi {
		t.Errorf("CoreDNS local: %s after %s, want SERVFAIL within %.1f s: %s", a.Rcode, a.Took, b.Hi, b.Basis)
	}
	srv := w.ask(t, w.local, TypeSRV)
	t.Logf("CoreDNS local, its upstream killed, SRV (cached): %s %v TTL %s in %.3f s", srv.Rcode, srv.Ports, srv.TTL, srv.Took.Seconds())
	if srv.Rcode != NoError || !slices.Equal(srv.Ports, w.alivePorts()) || srv.TTL != StaleAnswerTTL || srv.Took > time.Second {
		t.Errorf("CoreDNS local: %s %v TTL %s after %s, want the stale answer at once: %s", srv.Rcode, srv.Ports, srv.TTL, srv.Took, StaleBasis)
	}
	if err := w.plain.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("CoreDNS plain restarted: answering %.0f ms after its process started", float64(w.plain.ReadyIn().Milliseconds()))
	for w.askName(t, w.local, j1, TypeA).Rcode != NoError {
		if time.Since(servFailed) > DefaultServFailTTL+5*time.Second {
			t.Fatalf("CoreDNS local: no NOERROR for %s %s after its SERVFAIL", j1, time.Since(servFailed))
		}
		time.Sleep(100 * time.Millisecond)
	}
	got, lo, hi := time.Since(servFailed), DefaultServFailTTL-slack, DefaultServFailTTL+time.Second+slack
	t.Logf("CoreDNS local answers A %s NOERROR %.2f s after its SERVFAIL (band [%.1f, %.1f] s)", j1, got.Seconds(), lo.Seconds(), hi.Seconds())
	if got < lo || got > hi {
		t.Errorf("CoreDNS local: NOERROR %s after its SERVFAIL, want within [%s, %s]: the SERVFAIL is cached %s "+
			"(plugin/cache/cache.go:85, :446-447; handler.go:56-58), then served stale once: %s", got, lo, hi, DefaultServFailTTL, StaleServFailBasis)
	}
}

// askName queries s for name of type qt, bounded by 15 s.
func (w *testWorld) askName(t *testing.T, s *Server, name string, qt QType) Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	a, err := Query(ctx, s.Addr(), name, qt)
	if err != nil {
		t.Fatalf("CoreDNS %s: %v", s.Name, err)
	}
	return a
}
