package nacosreal

import (
	"context"
	"testing"
	"time"

	"sdchaos/childproc"
)

// TestJavaCallersCallARegisteredInstance runs each Java client mode against one instance: every
// call the pacer makes (20/s for 3 s: all 60 of them) ok, and the client's listener saw the one
// instance. The first call is due a lead after the launch, for the JVM and Spring to start; a
// client built after its first call was due is run again once with a lead of twice the time it
// took (how long a JVM takes to start is this machine's, not a rule).
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
			res, lead := runJavaCaller(t, sup, s.Addr(), mode, 25*time.Second)
			if res == nil {
				t.Logf("%s: the client was built after its first call was due: again with a %s lead", mode, lead)
				if res, _ = runJavaCaller(t, sup, s.Addr(), mode, lead); res == nil {
					t.Fatalf("the client was built after the first call was due, with a %s lead too", lead)
				}
			}
			if n, want := countOutcome(res.Calls, OK), dueCalls(20, 3*time.Second); n != len(res.Calls) || n != want {
				t.Errorf("%d of %d calls ok, want all of %d; first other: %+v", n, len(res.Calls), want, firstNot(res.Calls, OK))
			}
			if !sawCount(res.Events, 1) {
				t.Errorf("the listener never saw 1 instance: %+v", res.Events)
			}
		})
	}
}

// runJavaCaller runs a Java caller whose first call is due lead after its launch, 20/s for
// 3 s. It returns nil, and twice the time the client took to build, when the client was
// built after its first call was due.
func runJavaCaller(t *testing.T, sup *childproc.Supervisor, server string, mode JavaMode, lead time.Duration) (*Result, time.Duration) {
	t.Helper()
	launch := time.Now()
	start := launch.Add(lead)
	spec := JavaCallerSpec{Name: "caller-" + string(mode), Mode: mode, Server: server, Home: t.TempDir(),
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
		started.Sub(launch).Seconds(), len(res.Calls), len(res.Events), res.Other)
	if started.After(start) {
		return nil, 2 * started.Sub(launch)
	}
	return &res, lead
}

func startedAt(events []Event) time.Time {
	for _, e := range events {
		if e.Kind == EventStarted {
			return e.Time
		}
	}
	return time.Time{}
}
