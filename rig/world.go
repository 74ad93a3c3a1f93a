package rig

import (
	"context"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
)

// World is one registry behind the one run path. Every world (a folder
// under worlds/) implements it, and Run runs every experiment on any of
// them: the world starts what the
// experiment asks for, hands Run its traffic and its timeline of fault
// values (each acting on the world's targets: members, links, instances,
// callers), records what only it can see, and releases everything.
type World interface {
	// Describe names the world for progress lines (the server, its
	// version, its members).
	Describe() string
	// Start starts the registry, its instances and what the traffic needs;
	// whatever it starts is released by Close, and by the Env's Close in
	// any case.
	Start(ctx context.Context) error
	// Traffic returns what runs beside the timeline (callers, real clients,
	// a user's client, key-value traffic, a fleet's registrants), ready to
	// run.
	Traffic(ctx context.Context) ([]caller.Traffic, error)
	// Timeline returns the fault and probe timeline, offsets from the
	// recorder's zero: fault values, never faults timed by hand.
	Timeline(ctx context.Context) (fault.Timeline, error)
	// Recorder returns the run's recorder with the world's ready check in
	// it, and how long the traffic runs from its time zero (real time). It
	// is asked for last, right before the traffic starts, so that time
	// zero is not spent building the timeline.
	Recorder(ctx context.Context) (*history.Recorder, time.Duration)
	// Finish runs once the traffic has ended: it records what only the
	// world knows (the registry's own log, its final state) and returns
	// where the measured timeline ends and the data the history keeps
	// (nil for none).
	Finish(ctx context.Context, rec *history.Recorder) (end time.Duration, data any, err error)
	// Close releases what Start started (safe to call more than once).
	Close()
}

// TimelineWatcher is a World that wants to know when the timeline's last
// step has run (key-value traffic that stops with it).
type TimelineWatcher interface {
	// TimelineDone is called once the timeline has run.
	TimelineDone()
}

// Run is the one run path: it starts the world, builds its traffic and
// its timeline, runs the traffic while the timeline fires, lets the world
// finish, and returns the recorded history. The world is closed when Run
// returns, whatever happened.
func Run(ctx context.Context, env *Env, w World) (*history.History, error) {
	defer w.Close()
	if err := w.Start(ctx); err != nil {
		return nil, err
	}
	ts, err := w.Traffic(ctx)
	if err != nil {
		return nil, err
	}
	tl, err := w.Timeline(ctx)
	if err != nil {
		return nil, fmt.Errorf("building the fault timeline: %w", err)
	}
	rec, d := w.Recorder(ctx)
	env.Printf("%s; timeline: %s", w.Describe(), tl.Describe())
	then := func() {}
	if tw, ok := w.(TimelineWatcher); ok {
		then = tw.TimelineDone
	}
	if err := runTraffic(ctx, rec, ts, tl, d, then); err != nil {
		return nil, fmt.Errorf("running traffic: %w", err)
	}
	end, data, err := w.Finish(ctx, rec)
	if err != nil {
		return nil, err
	}
	h := rec.History()
	h.Timeline = end
	if data != nil {
		if err := h.SetData(data); err != nil {
			return nil, err
		}
	}
	return &h, nil
}
