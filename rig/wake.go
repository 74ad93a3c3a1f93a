package rig

import (
	"context"
	"time"

	"sdchaos/history"
)

// wakeEvery is how often the wake probe sleeps and wakes.
const wakeEvery = 10 * time.Millisecond

// wakeProbe is a scaled-time run's check on its own scheduling: it wakes
// every wakeEvery for the run and leaves one history.WakeOp op, the
// wake-ups later than SchedSlack counted (report's wake gate makes the run
// invalid when any was: the model's bands allow each wake-up SchedSlack of
// real time, ×the scale in model time).
type wakeProbe struct{}

// Run wakes until d from the recorder's zero, then records the op.
func (wakeProbe) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	op := history.Op{Caller: history.WakeOp, Kind: history.OpGate, Value: SchedSlack.String(), Outcome: history.OK}
	end := rec.T0().Add(d)
	for due := rec.T0().Add(wakeEvery); due.Before(end); {
		t := time.NewTimer(time.Until(due))
		select {
		case <-ctx.Done():
			t.Stop()
			rec.Add(op)
			return nil
		case <-t.C:
		}
		now := time.Now() // when this goroutine ran again, not when the timer fired
		op.Seq++
		if late := now.Sub(due); late > SchedSlack {
			op.Count++
		}
		if late := now.Sub(due); late > op.Start-op.Scheduled {
			op.Scheduled, op.Start, op.End = rec.Offset(due), rec.Offset(now), rec.Offset(now)
		}
		due = now.Add(wakeEvery) // a stall counts once, not once per slot it swallowed
	}
	rec.Add(op)
	return nil
}
