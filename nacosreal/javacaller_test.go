package nacosreal

import (
	"context"
	"testing"
	"time"
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
			spec := JavaCallerSpec{Name: "caller-" + string(mode), Mode: mode, Server: s.Addr(), Home: t.TempDir(),
				CallerSpec: CallerSpec{Service: "svc", Rate: 20, Start: start, End: start.Add(3 * time.Second), CallTimeout: time.Second},
				Logf:       t.Logf}
			c, err := StartJavaCaller(context.Background(), sup, spec)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Wait()
			if err != nil {
				t.Fatal(err)
			}
			started := startedAt(res.Events)
			t.Logf("%s: client built %.1f s after launch; %d calls, %d events, %d console lines", mode,
				started.Sub(start.Add(-25*time.Second)).Seconds(), len(res.Calls), len(res.Events), res.Other)
			if started.After(start) {
				t.Fatalf("the client was built %s after the first call was due", started.Sub(start))
			}
			if n := countOutcome(res.Calls, OK); n != len(res.Calls) || n < 55 {
				t.Errorf("%d of %d calls ok, want all of 60; first other: %+v", n, len(res.Calls), firstNot(res.Calls, OK))
			}
			if !sawCount(res.Events, 1) {
				t.Errorf("the listener never saw 1 instance: %+v", res.Events)
			}
		})
	}
}

func startedAt(events []Event) time.Time {
	for _, e := range events {
		if e.Kind == EventStarted {
			return e.Time
		}
	}
	return time.Time{}
}
