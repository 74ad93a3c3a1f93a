package fault

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
)

func TestGuardTurnsAPanicIntoAnErrorNamingThePhase(t *testing.T) {
	var m map[string]int
	err := Guard("the plan", func() error { m["x"] = 1; return nil })
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Phase != "the plan" || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Fatalf("err = %v, want a PanicError of the plan", err)
	}
	if !strings.Contains(pe.At, "guard_test.go:") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want one line naming the panicking frame", err)
	}
	if err := Guard("x", func() error { return errors.New("plain") }); err == nil || err.Error() != "plain" {
		t.Errorf("an error that is not a panic came back as %v", err)
	}
}

func TestFailpointPanicsOnlyWhenArmed(t *testing.T) {
	t.Setenv(FailpointEnv, "a,b")
	if err := Guard("p", func() error { Failpoint("c"); return nil }); err != nil {
		t.Fatalf("an unarmed failpoint fired: %v", err)
	}
	if err := Guard("p", func() error { Failpoint("b"); return nil }); err == nil || !strings.Contains(err.Error(), "failpoint b") {
		t.Fatalf("armed failpoint b: %v", err)
	}
}

// A step that panics ends the run with a PanicError, and every fault in
// place — the panicking step's own and another step's — is healed before
// Run returns (the must-fail: without the recover the test binary dies).
func TestAPanickingStepEndsTheRunAndEveryFaultIsHealed(t *testing.T) {
	t.Setenv(FailpointEnv, "timeline-injected")
	own, other := healing{&fakeFault{name: "own"}}, healing{&fakeFault{name: "other"}}
	boom := ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "boom"}, Func: func(context.Context, *history.Recorder) error {
		var p *struct{ x int }
		p.x++ // a nil pointer, as the storm's cost sampling had on an external member
		return nil
	}}
	tests := []struct {
		name, phase string
		tl          Timeline
		healed      []healing
	}{
		{"failpoint after the inject", "timeline step own", Timeline{{At: 0, For: time.Hour, Fault: own}}, []healing{own}},
		{"a probe panics", "timeline step boom", Timeline{{At: 0, For: time.Hour, Fault: other}, {At: 20 * time.Millisecond, Probe: boom}}, []healing{other}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.phase == "timeline step boom" {
				t.Setenv(FailpointEnv, "")
			}
			err := tc.tl.Run(context.Background(), history.NewRecorder(time.Now()))
			var pe *PanicError
			if !errors.As(err, &pe) || pe.Phase != tc.phase {
				t.Fatalf("err = %v, want a PanicError of %q", err, tc.phase)
			}
			for _, h := range tc.healed {
				if strings.Join(h.events, ",") != "inject,heal" {
					t.Errorf("%s: events %v, want inject,heal", h.name, h.events)
				}
			}
		})
	}
}
