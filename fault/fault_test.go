package fault

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeFault struct {
	name    string
	mu      sync.Mutex
	events  []string
	failInj bool
}

func (f *fakeFault) Name() string { return f.name }
func (f *fakeFault) Inject(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, "inject")
	if f.failInj {
		return errors.New("boom")
	}
	return nil
}

type healing struct{ *fakeFault }

func (h healing) Heal(context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, "heal")
	return nil
}

func TestTimelineFiresOnTimeAndMarks(t *testing.T) {
	a, b := &fakeFault{name: "a"}, &fakeFault{name: "b"}
	tl := Timeline{{At: 30 * time.Millisecond, For: 40 * time.Millisecond, Fault: healing{a}}, {At: 10 * time.Millisecond, Fault: b}}
	t0 := time.Now()
	var mu sync.Mutex
	marks := map[string]time.Duration{}
	err := tl.Run(context.Background(), t0, func(at time.Time, label string) {
		mu.Lock()
		marks[label] = at.Sub(t0)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{"a": 30 * time.Millisecond, "healed: a": 70 * time.Millisecond, "b": 10 * time.Millisecond}
	for label, at := range want {
		got, ok := marks[label]
		if !ok || got < at || got > at+50*time.Millisecond {
			t.Errorf("mark %q at %v, want %v (+50ms)", label, got, at)
		}
	}
	if strings.Join(a.events, ",") != "inject,heal" || strings.Join(b.events, ",") != "inject" {
		t.Errorf("events a=%v b=%v", a.events, b.events)
	}
}

func TestTimelineValidationAndErrors(t *testing.T) {
	tests := []struct {
		name string
		tl   Timeline
		want string
	}{
		{"duration on a fault that cannot heal", Timeline{{At: 0, For: time.Second, Fault: &fakeFault{name: "x"}}}, "cannot be healed"},
		{"negative time", Timeline{{At: -time.Second, Fault: &fakeFault{name: "x"}}}, "negative"},
		{"inject fails", Timeline{{Fault: &fakeFault{name: "x", failInj: true}}}, "injecting x: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.tl.Run(context.Background(), time.Now(), func(time.Time, string) {})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTimelineStopsWithContext(t *testing.T) {
	f := &fakeFault{name: "late"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (Timeline{{At: time.Hour, Fault: f}}).Run(ctx, time.Now(), func(time.Time, string) {}); err != nil {
		t.Fatal(err)
	}
	if len(f.events) != 0 {
		t.Fatal("a step fired after the context ended")
	}
}
