package eurekamodel

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"sdchaos/clock"
)

// fakeServers answers per server: a status, or an error when down.
type fakeServers struct {
	down  map[string]bool
	codes map[string]int
	calls []string
}

func (f *fakeServers) do(server string) (int, error) {
	f.calls = append(f.calls, server)
	if f.down[server] {
		return 0, errors.New("connection refused")
	}
	if c, ok := f.codes[server]; ok {
		return c, nil
	}
	return http.StatusOK, nil
}

func servers(s ...string) []string { return s }

func TestRetryableStickinessAndQuarantine(t *testing.T) {
	tests := []struct {
		name       string
		servers    []string
		refresh    float64
		down       []string
		codes      map[string]int
		rt         RequestType
		warm       bool // one successful call on the first server before the faults
		wantCalls  []string
		wantErr    bool
		wantSticky string
		wantQuar   []string
	}{
		{name: "first answer sticks", servers: servers("a", "b", "c"), refresh: 0.66,
			wantCalls: []string{"a"}, wantSticky: "a"},
		{name: "sticky server dies: 3 servers clear a quarantine of 1, so the dead one is tried twice",
			servers: servers("a", "b", "c"), refresh: 0.66, warm: true, down: []string{"a"},
			wantCalls: []string{"a", "a", "a", "b"}, wantSticky: "b", wantQuar: []string{"a"}},
		{name: "2 of 3 down: the sticky one and the list's first two, then an error although c is up",
			servers: servers("a", "b", "c"), refresh: 0.66, warm: true, down: []string{"a", "b"},
			wantCalls: []string{"a", "a", "a", "b"}, wantErr: true, wantQuar: []string{"a", "b"}},
		{name: "all down: 3 attempts then an error", servers: servers("a", "b", "c"), refresh: 0.66,
			down: []string{"a", "b", "c"}, wantCalls: []string{"a", "b", "c"}, wantErr: true,
			wantQuar: []string{"a", "b", "c"}},
		{name: "5xx is retried elsewhere", servers: servers("a", "b"), refresh: 0.66,
			codes: map[string]int{"a": 503}, wantCalls: []string{"a", "b"}, wantSticky: "b", wantQuar: []string{"a"}},
		{name: "404 to a heartbeat is an answer", servers: servers("a", "b"), refresh: 0.66, rt: ReqHeartbeat,
			codes: map[string]int{"a": 404}, wantCalls: []string{"a"}, wantSticky: "a"},
		{name: "404 to a fetch is not", servers: servers("a", "b"), refresh: 0.66, rt: ReqFetch,
			codes: map[string]int{"a": 404}, wantCalls: []string{"a", "b"}, wantSticky: "b", wantQuar: []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRetryable(tc.servers, 3, tc.refresh)
			f := &fakeServers{down: map[string]bool{}, codes: tc.codes}
			if tc.warm {
				if _, _, err := r.Execute(tc.rt, f.do); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range tc.down {
				f.down[s] = true
			}
			_, attempts, err := r.Execute(tc.rt, f.do)
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrAllFailed)) {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if !slices.Equal(f.calls, tc.wantCalls) {
				t.Errorf("calls %v, want %v", f.calls, tc.wantCalls)
			}
			if len(attempts) != len(f.calls)-b2i(tc.warm) {
				t.Errorf("%d attempts recorded for %d calls", len(attempts), len(f.calls))
			}
			if r.Sticky() != tc.wantSticky {
				t.Errorf("sticky = %q, want %q", r.Sticky(), tc.wantSticky)
			}
			if q := r.Quarantined(); !slices.Equal(q, tc.wantQuar) {
				t.Errorf("quarantined %v, want %v", q, tc.wantQuar)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRetryableQuarantineSkipsAndStaysSticky(t *testing.T) {
	r := NewRetryable(servers("a", "b", "c", "d"), 3, 0.66) // threshold (int)(4 × 0.66) = 2
	f := &fakeServers{down: map[string]bool{"a": true}}
	r.Execute(ReqFetch, f.do) // a (quarantined), b sticks
	f.calls = nil
	for range 3 {
		r.Execute(ReqFetch, f.do)
	}
	if !slices.Equal(f.calls, []string{"b", "b", "b"}) {
		t.Fatalf("calls %v: a sticky client must keep using b", f.calls)
	}
	f.down["b"] = true
	f.calls = nil
	r.Execute(ReqFetch, f.do) // sticky b fails; candidates skip quarantined a: b, c
	if !slices.Equal(f.calls, []string{"b", "b", "c"}) || r.Sticky() != "c" {
		t.Fatalf("calls %v sticky %q", f.calls, r.Sticky())
	}
	if q := r.Quarantined(); !slices.Equal(q, []string{"a", "b"}) {
		t.Fatalf("quarantined %v", q)
	}
}

func TestBatcherReleasesOnceTheOldestTaskWaitedTheDelay(t *testing.T) {
	b := newBatcher(500*time.Millisecond, 2)
	t0 := clock.Epoch
	task := func(action, id string, at time.Duration) replTask {
		return replTask{item: ReplicationItem{Action: action, Instance: Instance{App: "A", ID: id}},
			submitted: t0.Add(at), expiry: t0.Add(at + 30*time.Second)}
	}
	b.add(task(ActRegister, "1", 0))
	b.add(task(ActHeartbeat, "1", 100*time.Millisecond))
	b.add(task(ActRegister, "2", 200*time.Millisecond))
	b.add(task(ActHeartbeat, "1", 300*time.Millisecond)) // replaces the pending heartbeat in place
	if due, _ := b.dueAt(); !due.Equal(t0.Add(500 * time.Millisecond)) {
		t.Fatalf("due at %v", due)
	}
	if got := b.take(t0.Add(499 * time.Millisecond)); got != nil {
		t.Fatalf("released early: %v", got)
	}
	got := b.take(t0.Add(500 * time.Millisecond))
	if len(got) != 2 || got[0].id() != "register#A/1" || got[1].id() != "heartbeat#A/1" ||
		!got[1].submitted.Equal(t0.Add(300*time.Millisecond)) {
		t.Fatalf("first batch %+v", got)
	}
	if b.len() != 1 {
		t.Fatalf("%d left, want 1", b.len())
	}
	b.requeue(got, t0.Add(time.Second))
	if b.len() != 3 || b.order[0] != "register#A/1" || b.order[2] != "register#A/2" {
		t.Fatalf("after requeue: %v", b.order)
	}
	if got := b.take(t0.Add(31 * time.Second)); len(got) != 0 {
		t.Fatalf("expired tasks released: %+v", got)
	}
}
