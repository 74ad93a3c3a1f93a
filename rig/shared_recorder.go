package rig

import (
	"time"

	"sdchaos/history"
)

// SharedRecorder is the recorder of a world that sets its own time zero
// (callers launched before their first call), shared by consecutive worlds on one
// timeline (the storm's phases): the first New makes it, with the run's
// live progress (NewRecorderAt), and every later New returns it.
type SharedRecorder struct {
	Env *Env
	// NoEventLines keeps the live progress from printing a line per event
	// (a storm's hundreds of per-link faults): the per-second lines stay.
	NoEventLines bool
	// Rec is the recorder once the first world made it.
	Rec *history.Recorder
}

// New returns the shared recorder, making it with time zero t0 and real
// the timeline's length when it does not exist yet.
func (s *SharedRecorder) New(t0 time.Time, real time.Duration) *history.Recorder {
	if s.Rec == nil {
		s.Rec = NewRecorderAt(s.Env, t0, real)
		if s.NoEventLines {
			s.Rec.Watch(nil)
		}
	}
	return s.Rec
}
