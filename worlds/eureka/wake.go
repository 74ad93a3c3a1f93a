package eureka

import (
	"context"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/rig"
)

// wakeServer is a server process that measures its own wake-ups (the
// model's Eureka servers).
type wakeServer interface {
	Name() string
	Alive() bool
	// ResetWake starts the span its Wake reports.
	ResetWake() error
	// Wake is what the server's probe saw since ResetWake.
	Wake() (clock.WakeStats, error)
}

// wakeProbe is a scaled-time run's check on its own scheduling and on its
// servers': it wakes every clock.WakeEvery for the run and leaves one
// history.WakeOp op, then one op per live server (history.WakeOp + "/" +
// its name) from the server's own probe over the same span, the wake-ups
// later than SchedSlack counted (report's wake gate makes the run invalid
// when any was: the model's bands allow each wake-up SchedSlack of real
// time, ×the scale in model time). A server killed during the run leaves
// no op, and an interrupted run none for any server.
type wakeProbe struct{ servers []wakeServer }

// Run resets the servers' probes, wakes until d from the recorder's zero,
// then records the ops.
func (w wakeProbe) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	for _, s := range w.servers {
		if err := s.ResetWake(); err != nil {
			return err
		}
	}
	var p clock.WakeProbe
	p.Run(ctx, rec.T0().Add(d))
	rec.Add(wakeOp(rec, history.WakeOp, p.Stats()))
	if ctx.Err() != nil {
		return nil // interrupted: the servers may be closing, and the run is not judged
	}
	for _, s := range w.servers {
		if !s.Alive() {
			continue
		}
		st, err := s.Wake()
		if err != nil {
			return err
		}
		rec.Add(wakeOp(rec, history.WakeOp+"/"+s.Name(), st))
	}
	return nil
}

// wakeOp is the gate op of one probe's stats: Seq wake-ups, Count late
// ones, Scheduled and Start the worst one's due and actual time.
func wakeOp(rec *history.Recorder, caller string, st clock.WakeStats) history.Op {
	op := history.Op{Caller: caller, Kind: history.OpGate, Value: rig.SchedSlack.String(), Outcome: history.OK, Seq: st.Wakes, Count: st.Late}
	if st.Wakes > 0 {
		op.Scheduled, op.Start = rec.Offset(st.WorstDue), rec.Offset(st.WorstDue.Add(st.Worst))
		op.End = op.Start
	}
	return op
}
