package dns

import (
	"context"
	"slices"
	"testing"
	"time"

	"sdchaos/cluster"
)

// checkQuorumLoss SIGKILLs two etcd members (the leader among them): the
// server without a cache answers SERVFAIL within the etcd plugin's
// timeout; serve_stale (immediate, verify, and the node-local layer) serve
// the expired answer with TTL 0; a restarted server has lost its cache.
func (w *testWorld) checkQuorumLoss(t *testing.T) {
	want := w.alivePorts()
	for _, s := range []*Server{w.stale, w.verify, w.local} {
		if a := w.ask(t, s, TypeSRV); !slices.Equal(a.Ports, want) {
			t.Fatalf("CoreDNS %s before the quorum loss: %v, want %v", s.Name, a.Ports, want)
		}
	}
	traffic := w.newQuorumTraffic(t)
	filled := time.Now()
	w.loseQuorum(t)
	traffic.start(8 * time.Second)
	w.checkServFail(t, w.plain)
	// Every cached entry has expired by now (filled + its 5 s).
	if wait := time.Until(filled.Add(CachedFor(w.svc.TTL, 0) + time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	for _, s := range []*Server{w.stale, w.verify, w.local} {
		w.checkStale(t, s, want)
	}
	g := NewGoResolver(ResolverConfig{Name: "go", Server: w.stale.Addr(), Host: w.name(), QType: TypeSRV, Timeout: 2 * time.Second})
	if got, err := g.Resolve(context.Background()); err != nil || len(got) != len(want) {
		t.Errorf("Go resolver through stale during the quorum loss: %v, %v; want %d ports", got, err, len(want))
	}
	traffic.check(t)
	w.stale.Kill()
	if err := w.stale.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("CoreDNS stale restarted: answering %.0f ms after its process started", float64(w.stale.ReadyIn().Milliseconds()))
	w.checkServFail(t, w.stale)
	w.servFailAt = time.Now()
	w.checkServFailCached(t, w.stale)
}

// checkServFailCached: right after a SERVFAIL, the cache answers the same
// query with its cached SERVFAIL at once (DefaultServFailTTL).
func (w *testWorld) checkServFailCached(t *testing.T, s *Server) {
	a := w.ask(t, s, TypeSRV)
	t.Logf("CoreDNS %s, the next query: %s in %.3f s (the SERVFAIL cached for %s)", s.Name, a.Rcode, a.Took.Seconds(), DefaultServFailTTL)
	if a.Rcode != ServFail || a.Took > time.Second {
		t.Errorf("CoreDNS %s: %s after %s, want the cached SERVFAIL within 1 s (plugin/cache/cache.go:85, :446-447)", s.Name, a.Rcode, a.Took)
	}
}

// loseQuorum kills the leader and one follower.
func (w *testWorld) loseQuorum(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leader, err := w.etcd.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	victims := []*cluster.Node{leader}
	for _, n := range w.etcd.Nodes() {
		if n != leader && len(victims) < 2 {
			victims = append(victims, n)
		}
	}
	for _, n := range victims {
		if err := n.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("etcd %s (leader) and %s SIGKILLed", victims[0].Name, victims[1].Name)
	w.killed = victims
	if leader.Running() {
		t.Fatalf("etcd leader %s still running", leader.Name)
	}
}

// checkServFail: a query to s is answered SERVFAIL within its band.
func (w *testWorld) checkServFail(t *testing.T, s *Server) {
	a := w.ask(t, s, TypeSRV)
	b := ServFailAfterQuorumLoss()
	t.Logf("CoreDNS %s after the quorum loss: %s in %.2f s (band [%.1f, %.1f] s)", s.Name, a.Rcode, a.Took.Seconds(), b.Lo, b.Hi)
	if a.Rcode != ServFail || a.Took.Seconds() > b.Hi {
		t.Errorf("CoreDNS %s: %s after %s, want SERVFAIL within %.1f s: %s", s.Name, a.Rcode, a.Took, b.Hi, b.Basis)
	}
}

// checkStale: s answers with the expired entry, TTL 0: at once in
// immediate mode, after the upstream's failure in verify mode.
func (w *testWorld) checkStale(t *testing.T, s *Server, want []uint16) {
	a := w.ask(t, s, TypeSRV)
	hi := time.Second
	if s.Config().Cache.ServeStale.Mode == StaleVerify {
		hi = EtcdTimeout + slack
	}
	t.Logf("CoreDNS %s after the quorum loss, entry expired: %s %v TTL %s in %.2f s (want ≤ %.1f s)", s.Name, a.Rcode, a.Ports, a.TTL, a.Took.Seconds(), hi.Seconds())
	if a.Rcode != NoError || !slices.Equal(a.Ports, want) || a.TTL != StaleAnswerTTL || a.Took > hi {
		t.Errorf("CoreDNS %s: %s %v TTL %s after %s, want the stale NOERROR %v with TTL %d within %s: %s",
			s.Name, a.Rcode, a.Ports, a.TTL, a.Took, want, StaleAnswerTTL, hi, StaleBasis)
	}
}
