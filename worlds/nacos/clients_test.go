package nacos

import (
	"context"
	"math"
	"testing"
	"time"

	"sdchaos/history"
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

// goCallerCalls runs a Go SDK caller against the server (20/s for 2 s): every call the pacer
// makes ok, and its subscriber saw the one instance.
func goCallerCalls(t *testing.T, s *Server) {
	start := time.Now()
	rec := history.NewRecorder(start)
	g, err := StartGoCaller(context.Background(), GoDefaults(s.Addr(), t.TempDir()),
		CallerSpec{Service: "svc", Rate: 20, Start: start, End: start.Add(2 * time.Second), CallTimeout: time.Second, Log: NewCallLog(rec, "go")})
	if err != nil {
		t.Fatal(err)
	}
	g.Wait()
	h := rec.History()
	calls := history.Filter(h.Ops, "go")
	// The pacer makes every call due at 20/s in [start, start + 2 s), late
	// ones at once: 40 calls, all ok.
	if n, want := countOutcome(calls, history.OK), dueCalls(20, 2*time.Second); n != len(calls) || n != want {
		t.Errorf("%d of %d calls ok, want all of %d: %+v", n, len(calls), want, firstNot(calls, history.OK))
	}
	if !sawCount(history.Filter(h.Ops, history.ClientLabel("go")), 1) {
		t.Errorf("the subscriber never saw 1 instance: %+v", h.Ops)
	}
}

// dueCalls is how many calls an open-loop pacer at rate makes in d: one
// due every 1/rate from the start, none at or after the end.
func dueCalls(rate float64, d time.Duration) int {
	return int(math.Ceil(rate * d.Seconds()))
}

func countOutcome(ops []history.Op, o history.Outcome) int {
	n := 0
	for _, op := range ops {
		if op.Outcome == o {
			n++
		}
	}
	return n
}

func firstNot(ops []history.Op, o history.Outcome) *history.Op {
	for i := range ops {
		if ops[i].Outcome != o {
			return &ops[i]
		}
	}
	return nil
}

// sawCount reports whether a client's listener saw n instances.
func sawCount(reports []history.Op, n int) bool {
	for _, op := range reports {
		if op.Kind == history.OpNotify && op.Count == n {
			return true
		}
	}
	return false
}
