package rig

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
)

// panicky is traffic that panics (a harness bug) after a moment.
type panicky struct{}

func (panicky) Run(ctx context.Context, _ *history.Recorder, _ time.Duration) error {
	time.Sleep(20 * time.Millisecond)
	var m map[int]int
	m[1] = 1
	return nil
}

// held is a fault that counts its heals.
type held struct{ heals atomic.Int32 }

func (h *held) Describe() history.Event {
	return history.Event{Kind: history.BlackholeLinks, Label: "held"}
}
func (h *held) Inject(context.Context) error { return nil }
func (h *held) Heal(context.Context) error   { h.heals.Add(1); return nil }

// TestAPanickingTrafficSourceEndsTheRunHealed: a panic in a traffic
// goroutine is the run's error (a *fault.PanicError naming the source), not
// the death of the process, and the timeline's fault is healed.
func TestAPanickingTrafficSourceEndsTheRunHealed(t *testing.T) {
	h := &held{}
	rec := history.NewRecorder(time.Now())
	tl := fault.Timeline{{At: 0, For: time.Hour, Fault: h}}
	err := RunTraffic(context.Background(), rec, []caller.Traffic{panicky{}}, tl, time.Hour)
	var pe *fault.PanicError
	if !errors.As(err, &pe) || !strings.Contains(pe.Phase, "traffic source 0") {
		t.Fatalf("err = %v, want a PanicError of traffic source 0", err)
	}
	if h.heals.Load() != 1 {
		t.Errorf("the timeline's fault was healed %d times, want 1", h.heals.Load())
	}
}
