package dns

import (
	"context"
	"testing"
	"time"
)

// checkHeal restarts the killed etcd members: the server without a cache
// answers again; the serve_stale server first answers with its expired
// SERVFAIL (StaleServFailBasis), then with the refreshed records.
func (w *testWorld) checkHeal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, n := range w.killed {
		if err := n.Restart(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.etcd.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	healed := time.Now()
	w.waitNoError(t, w.plain, 30*time.Second)
	t.Logf("CoreDNS plain answers NOERROR %.2f s after etcd is healthy again", time.Since(healed).Seconds())
	if wait := time.Until(w.servFailAt.Add(DefaultServFailTTL + time.Second)); wait > 0 {
		time.Sleep(wait) // until the SERVFAIL checkServFail cached has expired
	}
	// etcd answers again, so a SERVFAIL now can only be the cached one.
	first := w.ask(t, w.stale, TypeSRV)
	t.Logf("CoreDNS stale, first answer after the heal: %s %v in %.3f s", first.Rcode, first.Ports, first.Took.Seconds())
	if first.Rcode != ServFail || first.Took > time.Second {
		t.Errorf("CoreDNS stale after the heal: %s in %s, want its expired SERVFAIL served stale at once: %s", first.Rcode, first.Took, StaleServFailBasis)
	}
	t0 := time.Now()
	w.waitNoError(t, w.stale, 30*time.Second)
	t.Logf("CoreDNS stale answers NOERROR %.2f s after that", time.Since(t0).Seconds())
}

// waitNoError queries s every 100 ms until it answers NOERROR with the
// live instances.
func (w *testWorld) waitNoError(t *testing.T, s *Server, limit time.Duration) {
	t.Helper()
	t0 := time.Now()
	want := w.alivePorts()
	for time.Since(t0) < limit {
		if a := w.ask(t, s, TypeSRV); a.Rcode == NoError && len(a.Ports) == len(want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("CoreDNS %s: no NOERROR answer listing %v within %s after the heal", s.Name, want, limit)
}
