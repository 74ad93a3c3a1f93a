package fault

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/report"
)

type fakeFault struct {
	name    string
	mu      sync.Mutex
	events  []string
	failInj bool
}

func (f *fakeFault) Describe() history.Event {
	return history.Event{Kind: history.CrashInstance, Targets: []string{f.name}, Label: f.name}
}
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

// TestTimelineFiresOnTimeAndMarks: each step sleeps until its time from the
// recorder's zero (clock.SleepUntil, never early) and marks it when it
// wakes, so a mark lies within one late wake-up (clock.SchedSlack) after its
// time; the heal sleeps until At + For from zero too, not from the inject.
func TestTimelineFiresOnTimeAndMarks(t *testing.T) {
	a, b := &fakeFault{name: "a"}, &fakeFault{name: "b"}
	tl := Timeline{{At: 30 * time.Millisecond, For: 40 * time.Millisecond, Fault: healing{a}}, {At: 10 * time.Millisecond, Fault: b}}
	rec := history.NewRecorder(time.Now())
	if err := tl.Run(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	marks := map[string]time.Duration{}
	for _, e := range rec.Events() {
		marks[e.Label] = e.At
	}
	if heal, ok := rec.Events().First(history.CrashInstance, history.Heal); !ok || heal.Targets[0] != "a" {
		t.Errorf("no typed heal event of a: %+v", rec.Events())
	}
	want := map[string]time.Duration{"a": 30 * time.Millisecond, "healed: a": 70 * time.Millisecond, "b": 10 * time.Millisecond}
	for label, at := range want {
		got, ok := marks[label]
		if !ok || got < at || got > at+clock.SchedSlack {
			t.Errorf("mark %q at %v, want %v (+%s)", label, got, at, clock.SchedSlack)
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
		{"neither fault nor probe", Timeline{{At: 0}}, "exactly one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.tl.Run(context.Background(), history.NewRecorder(time.Now()))
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
	if err := (Timeline{{At: time.Hour, Fault: f}}).Run(ctx, history.NewRecorder(time.Now())); err != nil {
		t.Fatal(err)
	}
	if len(f.events) != 0 {
		t.Fatal("a step fired after the context ended")
	}
}

func TestTimelineRunsProbesAndHealsOnCancel(t *testing.T) {
	f := healing{&fakeFault{name: "held"}}
	ctx, cancel := context.WithCancel(context.Background())
	probed := make(chan struct{})
	probe := ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "look"}, Func: func(context.Context, *history.Recorder) error {
		close(probed)
		cancel() // the run ends while the fault is still in place
		return nil
	}}
	rec := history.NewRecorder(time.Now())
	tl := Timeline{{At: 0, For: time.Hour, Fault: f}, {At: 20 * time.Millisecond, Probe: probe}}
	if err := tl.Run(ctx, rec); err != nil {
		t.Fatal(err)
	}
	<-probed
	if _, ok := rec.Events().First(history.Probe, history.Once); !ok {
		t.Error("probe step recorded no event")
	}
	if strings.Join(f.events, ",") != "inject,heal" {
		t.Errorf("a fault left in place when the run was cancelled: %v", f.events)
	}
}

func TestAFaultThatFailsIsRecordedNotReturned(t *testing.T) {
	rec := history.NewRecorder(time.Now())
	if err := (Timeline{{Fault: &fakeFault{name: "x", failInj: true}}}).Run(context.Background(), rec); err != nil {
		t.Fatalf("a fault that did not take effect ended the run: %v", err)
	}
	e, ok := rec.Events().First(history.CrashInstance, history.Inject)
	if !ok || e.Err != "boom" {
		t.Errorf("event %+v, want one with err boom", e)
	}
	if g := report.Gates(&history.History{Events: rec.Events()}); report.GatesOK(g) {
		t.Errorf("gates %+v pass a run whose fault failed", g)
	}
}
