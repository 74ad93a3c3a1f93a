package xds

import (
	"testing"
	"time"

	"sdchaos/history"
)

// TestRecordedClientDeath: a client's calls due in the run are recorded as
// they went, and one whose process exited fails every call due after its
// exit, at its rate, so its death cannot pass for a short run that failed
// nothing.
func TestRecordedClientDeath(t *testing.T) {
	t0 := time.Now().Truncate(time.Second)
	rec := history.NewRecorder(t0)
	c := &Client{Spec: ClientSpec{Name: "xds-c", Rate: 10}}
	for i := -2; i < 20; i++ { // two before time zero; the process dies after 2 s
		due := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		c.calls = append(c.calls, CallLine{Scheduled: &due, Start: due, End: due.Add(time.Millisecond), Outcome: OutcomeOK})
	}
	r := &recordedClient{name: "c", c: c}
	end := t0.Add(5 * time.Second)
	k, last := r.record(rec, end)
	if k != 20 || !last.Equal(t0.Add(1900*time.Millisecond)) {
		t.Fatalf("record = %d calls, last due %s; want 20, 1.9 s", k, last.Sub(t0))
	}
	r.recordDead(rec, k, last.Add(r.period()), end, t0.Add(2*time.Second))
	h := rec.History()
	n, failed := 0, 0
	for _, op := range h.Ops {
		if op.Caller == "c" {
			n++
			if op.Outcome != history.OK {
				failed++
			}
		}
	}
	if n != 50 || failed != 30 {
		t.Errorf("%d calls, %d failed; want 50 (5 s at 10/s), 30 failed (from 2 s on)", n, failed)
	}
}
