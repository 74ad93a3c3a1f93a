package nacos

import (
	"context"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/history"
)

// TestServerServesCallersAndDiesWithKill registers one instance on one server (shared by the
// subtests: each start costs half a minute on two cores), then runs the Go SDK caller and each
// Java client mode against it: every call the pacer makes ok (Go 20/s for 2 s, Java 20/s for
// 3 s), and each client's listener saw the one instance; the instance is gone from the list once
// its client closes; then checkListensAndDiesWithKill. A Java caller is gated, as the world
// runs them: its first call is due gateLead after it reported ready.
func TestServerServesCallersAndDiesWithKill(t *testing.T) {
	needJVM(t)
	sup := newSup(t)
	s := startServer(t, sup, 2)
	ep, err := StartEndpoint(clientAlloc(2), "instance a")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Register(JavaDefaults(s.Addr(), t.TempDir()), "svc", ep)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t.Logf("listed after %s", waitCount(t, s, "svc", 1, 10*time.Second))
	t.Run("go", func(t *testing.T) { goCallerCalls(t, s) })
	for _, mode := range []JavaMode{Plain, Spring} {
		t.Run(string(mode), func(t *testing.T) {
			h := runJavaCaller(t, sup, s.Addr(), mode)
			calls, reports := history.Filter(h.Ops, "c"), history.Filter(h.Ops, history.ClientLabel("c"))
			if n, want := countOutcome(calls, history.OK), dueCalls(20, 3*time.Second); n != len(calls) || n != want {
				t.Errorf("%d of %d calls ok, want all of %d; first other: %+v", n, len(calls), want, firstNot(calls, history.OK))
			}
			if !sawCount(reports, 1) {
				t.Errorf("the listener never saw 1 instance: %+v", reports)
			}
		})
	}
	r.Close()
	t.Logf("gone %s after its client closed", waitCount(t, s, "svc", 0, 10*time.Second))
	checkListensAndDiesWithKill(t, sup, s)
}

// runJavaCaller runs a gated Java caller (recorded as "c"): once it reports ready its gate opens
// with its first call due gateLead later, 20/s for 3 s. Its client's started event must come
// after the gate opened and before the first call was due (what it reported before the gate,
// its listener's, is recorded at Attach).
func runJavaCaller(t *testing.T, sup *childproc.Supervisor, server string, mode JavaMode) *history.History {
	t.Helper()
	launch := time.Now()
	log := NewCallLog(nil, "c")
	spec := JavaCallerSpec{Name: "caller-" + string(mode), Mode: mode, Server: server, Home: t.TempDir(), Gated: true,
		CallerSpec: CallerSpec{Service: "svc", Rate: 20, CallTimeout: time.Second, Log: log}, Logf: t.Logf}
	c, err := StartJavaCaller(context.Background(), sup, spec)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Ready():
	case <-c.Done():
		t.Fatalf("%s exited before it was ready: %v", mode, c.Wait())
	case <-time.After(CallerPatience):
		t.Fatalf("%s not ready within %s", mode, CallerPatience)
	}
	ready := time.Since(launch)
	start := time.Now().Add(gateLead)
	rec := history.NewRecorder(start)
	log.Attach(rec)
	if err := c.Open(start, start.Add(3*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	h := rec.History()
	calls, reports := history.Filter(h.Ops, "c"), history.Filter(h.Ops, history.ClientLabel("c"))
	started := startedAt(reports) // from start
	t.Logf("%s: ready %.1f s after launch, started %.2f s before its first call; %d calls, %d reports, %d console lines", mode,
		ready.Seconds(), -started.Seconds(), len(calls), len(reports), c.Other())
	if started < -gateLead || started > 0 {
		t.Fatalf("%s: started at %s from its first call, want within [-%s, 0] (after the gate opened, before the first call)", mode, started, gateLead)
	}
	return &h
}

// startedAt is when the client reported it was built (from the recorder's zero; 1 h when it
// never did).
func startedAt(reports []history.Op) time.Duration {
	for _, op := range reports {
		if op.Kind == history.OpStart {
			return op.Start
		}
	}
	return time.Hour
}
