package nacosreal

import (
	"context"
	"math"
	"testing"
	"time"

	"sdchaos/ports"
)

// clientAlloc hands out test ports for endpoints and link proxies: 12700 + slot×20 upward
// (a Link's gRPC proxy sits 1000 above, at 13700…).
func clientAlloc(slot int) *ports.Allocator { return ports.New(12700+slot*20, "clientAlloc") }

// waitCount polls the server until it lists want instances of service.
func waitCount(t *testing.T, s *Server, service string, want int, d time.Duration) time.Duration {
	t.Helper()
	t0 := time.Now()
	var got int
	waitFor(t, "the server to list the instances", d, func() bool {
		list, err := s.Instances(context.Background(), service)
		got = len(list)
		return err == nil && got == want
	})
	return time.Since(t0)
}

func TestInstanceRegistersIsListedAndASubscriberSeesIt(t *testing.T) {
	needJVM(t)
	s := startServer(t, newSup(t), 1)
	alloc := clientAlloc(1)
	ep, err := StartEndpoint(alloc, "instance a")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Register(JavaDefaults(s.Addr(), t.TempDir()), "svc", ep)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("listed after %s", waitCount(t, s, "svc", 1, 10*time.Second))
	start := time.Now()
	g, err := StartGoCaller(context.Background(), GoDefaults(s.Addr(), t.TempDir()),
		CallerSpec{Service: "svc", Rate: 20, Start: start, End: start.Add(2 * time.Second), CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res := g.Wait()
	// The pacer makes every call due at 20/s in [start, start + 2 s), late
	// ones at once: 40 calls, all ok.
	if n, want := countOutcome(res.Calls, OK), dueCalls(20, 2*time.Second); n != len(res.Calls) || n != want {
		t.Errorf("%d of %d calls ok, want all of %d: %+v", n, len(res.Calls), want, firstNot(res.Calls, OK))
	}
	if !sawCount(res.Events, 1) {
		t.Errorf("the subscriber never saw 1 instance: %+v", res.Events)
	}
	r.Close()
	t.Logf("gone %s after its client closed", waitCount(t, s, "svc", 0, 10*time.Second))
}

// dueCalls is how many calls an open-loop pacer at rate makes in d: one
// due every 1/rate from the start, none at or after the end.
func dueCalls(rate float64, d time.Duration) int {
	return int(math.Ceil(rate * d.Seconds()))
}

func countOutcome(calls []Call, outcome string) int {
	n := 0
	for _, c := range calls {
		if c.Outcome == outcome {
			n++
		}
	}
	return n
}

func firstNot(calls []Call, outcome string) *Call {
	for i := range calls {
		if calls[i].Outcome != outcome {
			return &calls[i]
		}
	}
	return nil
}

func sawCount(events []Event, n int) bool {
	for _, e := range events {
		if e.Kind == EventInstances && e.Count == n {
			return true
		}
	}
	return false
}
