package nacosreal

import (
	"context"
	"testing"
	"time"

	"sdchaos/history"
)

// TestJavaCallersCallARegisteredInstance runs each Java client mode against one instance: every
// call ok, and the client's listener saw the one instance.
func TestJavaCallersCallARegisteredInstance(t *testing.T) {
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
	waitCount(t, s, "svc", 1, 10*time.Second)
	for _, mode := range []JavaMode{Plain, Spring} {
		t.Run(string(mode), func(t *testing.T) {
			start := time.Now().Add(25 * time.Second) // room for the JVM and Spring to start
			rec := history.NewRecorder(start)
			spec := JavaCallerSpec{Name: "caller-" + string(mode), Mode: mode, Server: s.Addr(), Home: t.TempDir(),
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
			started := startedAt(reports)
			t.Logf("%s: client built %.1f s after launch; %d calls, %d reports, %d console lines", mode,
				(started + 25*time.Second).Seconds(), len(calls), len(reports), c.Other())
			if started > 0 {
				t.Fatalf("the client was built %s after the first call was due", started)
			}
			if n := countOutcome(calls, history.OK); n != len(calls) || n < 55 {
				t.Errorf("%d of %d calls ok, want all of 60; first other: %+v", n, len(calls), firstNot(calls, history.OK))
			}
			if !sawCount(reports, 1) {
				t.Errorf("the listener never saw 1 instance: %+v", reports)
			}
		})
	}
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
