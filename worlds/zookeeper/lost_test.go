package zookeeper

import (
	"context"
	"fmt"
	"testing"
	"time"

	"sdchaos/ports"
)

// TestCuratorCacheThroughLost pauses every member for 8 s while a Curator
// caller with a 4 s session calls two live instances. The caller goes
// SUSPENDED, then LOST: its own client declares the session expired 4/3 T
// after it last heard from a server (2/3 T after SUSPENDED, which comes at the
// read timeout, 2/3 T), or Curator injects the expiry T after SUSPENDED
// (simulatedSessionExpirationPercent 100) — so LOST comes within [2/3 T,
// T + 1 s] of SUSPENDED. Its ServiceCache keeps its list through both: no
// call finds no instance. After the resume it reconnects (a new session).
func TestCuratorCacheThroughLost(t *testing.T) {
	needLong(t)
	sup := newSup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	alloc := ports.New(testPortBase+200, "testPortBase")
	cfg := DefaultConfig()
	cfg.Logf = t.Logf
	e, err := Start(ctx, sup, alloc, cfg)
	skipWithoutJVM(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := range 2 {
		in, err := StartInstance(ctx, alloc, RegistrantConfig{Servers: e.Servers(), Chroot: e.Chroot(), Service: "api", ID: fmt.Sprintf("api-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
	}
	session := NegotiateSessionTimeout(4*time.Second, cfg.TickTime, 0, 0)
	end := time.Now().Add(3 * time.Minute)
	c, err := StartJavaCaller(ctx, sup, JavaCallerSpec{Name: "curator", Mode: Curator, Connect: e.ConnectString(), Service: "api",
		Rate: callRate, End: end, CallTimeout: time.Second, SessionTimeout: session, Dir: t.TempDir(), Logf: t.Logf})
	skipWithoutJVM(t, err)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Started():
	case <-time.After(time.Until(end.Add(-time.Minute))):
		t.Fatalf("caller not ready a minute before the end (log %s)", c.LogPath())
	}
	waitUntil(t, ctx, time.Now().Add(5*time.Second))
	pauseAll(t, e, 8*time.Second)
	if _, err := e.WaitQuorum(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, time.Now().Add(15*time.Second))
	c.Kill()
	checkLost(t, c.Snapshot(), session)
}

func pauseAll(t *testing.T, e *Ensemble, d time.Duration) {
	t.Helper()
	for _, m := range e.Members() {
		if err := m.Pause(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("every member paused at %s for %s", time.Now().Format("15:04:05.000"), d)
	time.Sleep(d)
	for _, m := range e.Members() {
		if err := m.Resume(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkLost checks the order SUSPENDED, LOST, RECONNECTED, the LOST band, and
// that no call lacked an instance.
func checkLost(t *testing.T, res Result, session time.Duration) {
	t.Helper()
	var suspended, lost, back time.Time
	for _, e := range res.Connections() {
		switch {
		case e.State == Suspended && suspended.IsZero():
			suspended = e.Time
		case e.State == Lost && !suspended.IsZero() && lost.IsZero():
			lost = e.Time
		case e.State == Reconnected && !lost.IsZero() && back.IsZero():
			back = e.Time
		}
	}
	noInstance := 0
	for _, call := range res.Calls {
		if call.Outcome != OK && call.Target == "" {
			noInstance++
		}
	}
	t.Logf("LOST: states %v; SUSPENDED→LOST %.2f s, LOST→RECONNECTED %.2f s (session %s); %d calls, %d ok, %d without an instance",
		states(res), lost.Sub(suspended).Seconds(), back.Sub(lost).Seconds(), session, len(res.Calls), res.Count(OK), noInstance)
	if suspended.IsZero() || lost.IsZero() || back.IsZero() {
		t.Fatalf("want SUSPENDED, LOST, RECONNECTED in order; got %v", states(res))
	}
	lo, hi := session*ReadTimeoutNum/ReadTimeoutDen, session+time.Second
	if d := lost.Sub(suspended); d < lo || d > hi {
		t.Errorf("LOST %s after SUSPENDED, outside [%s, %s]", d, lo, hi)
	}
	if noInstance > 0 {
		t.Errorf("%d calls found no instance: the ServiceCache should keep its list through SUSPENDED and LOST", noInstance)
	}
}
