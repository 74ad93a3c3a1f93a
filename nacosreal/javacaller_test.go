package nacosreal

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
// its client closes; then checkListensAndDiesWithKill. A Java caller's first call is due a lead
// after the launch, for the JVM and Spring to start; a client built after its first call was due
// is run again once with a lead of twice the time it took (how long a JVM takes to start is this
// machine's, not a rule).
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
			h, lead := runJavaCaller(t, sup, s.Addr(), mode, 25*time.Second)
			if h == nil {
				t.Logf("%s: the client was built after its first call was due: again with a %s lead", mode, lead)
				if h, _ = runJavaCaller(t, sup, s.Addr(), mode, lead); h == nil {
					t.Fatalf("the client was built after the first call was due, with a %s lead too", lead)
				}
			}
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

// runJavaCaller runs a Java caller (recorded as "c") whose first call is due lead after its
// launch, 20/s for 3 s. It returns nil, and twice the time the client took to build, when the
// client was built after its first call was due.
func runJavaCaller(t *testing.T, sup *childproc.Supervisor, server string, mode JavaMode, lead time.Duration) (*history.History, time.Duration) {
	t.Helper()
	launch := time.Now()
	start := launch.Add(lead)
	rec := history.NewRecorder(start)
	spec := JavaCallerSpec{Name: "caller-" + string(mode), Mode: mode, Server: server, Home: t.TempDir(),
		CallerSpec: CallerSpec{Service: "svc", Rate: 20, Start: start, End: start.Add(3 * time.Second), CallTimeout: time.Second,
			Log: NewCallLog(rec, "c")},
		Logf: t.Logf}
	c, err := StartJavaCaller(context.Background(), sup, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	h := rec.History()
	calls, reports := history.Filter(h.Ops, "c"), history.Filter(h.Ops, history.ClientLabel("c"))
	started := startedAt(reports) // from start
	t.Logf("%s: client built %.1f s after launch; %d calls, %d reports, %d console lines", mode,
		(started + lead).Seconds(), len(calls), len(reports), c.Other())
	if started == time.Hour {
		t.Fatalf("%s: the client never reported it was built", mode)
	}
	if started > 0 {
		return nil, 2 * (started + lead)
	}
	return &h, lead
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
