package nacos

import (
	"sync"
	"time"

	"sdchaos/history"
)

// CallLog records one caller's calls and its client's reports into a
// history recorder as they come: each call an op of the caller (kind call,
// paced, its error class as the caller gave it), each report an op under
// history.ClientLabel(caller) (start, setup, notify, exit). Both processes
// of a restarted caller record into one log. Safe for concurrent use.
type CallLog struct {
	name    string
	mu      sync.Mutex
	rec     *history.Recorder
	pending []func(*history.Recorder) // what came before the recorder (Attach)
	seq     int
}

// NewCallLog returns the log of the caller called name, recording into rec; with rec nil it
// keeps what comes until Attach gives it one (a caller launched before the run's zero is
// known).
func NewCallLog(rec *history.Recorder, name string) *CallLog {
	return &CallLog{rec: rec, name: name}
}

// Attach gives the log its recorder and records into it, in order, what came before.
func (l *CallLog) Attach(rec *history.Recorder) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec = rec
	for _, f := range l.pending {
		f(rec)
	}
	l.pending = nil
}

// Recorder returns the recorder the log records into (nil before Attach).
func (l *CallLog) Recorder() *history.Recorder {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rec
}

// record runs f with the recorder, or keeps it for Attach.
func (l *CallLog) record(f func(*history.Recorder)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rec == nil {
		l.pending = append(l.pending, f)
		return
	}
	f(l.rec)
}

// call records one call.
func (l *CallLog) call(c Call) {
	l.record(func(rec *history.Recorder) {
		op := history.Op{Caller: l.name, Kind: history.OpCall, Paced: true, Seq: l.seq, Scheduled: rec.Offset(c.Scheduled),
			Start: rec.Offset(c.Start), End: rec.Offset(c.End), Target: c.Target, Outcome: outcomeOf(c.Outcome), Err: c.Err}
		l.seq++
		if op.Outcome != history.OK {
			op.ErrClass = classOf(c.Class)
		}
		rec.Add(op)
	})
}

// outcomeOf maps a line's outcome to the history's.
func outcomeOf(o string) history.Outcome {
	switch o {
	case OK:
		return history.OK
	case Unknown:
		return history.Unknown
	}
	return history.Fail
}

// classOf maps a line's error class to the history's (ErrOther for one
// the history does not know).
func classOf(c string) history.ErrClass {
	switch k := history.ErrClass(c); k {
	case history.ErrNoInstance, history.ErrRegistry, history.ErrInstance:
		return k
	}
	return history.ErrOther
}

// event records one report of the caller's client.
func (l *CallLog) event(e Event) {
	op := history.Op{Caller: history.ClientLabel(l.name), Outcome: history.OK}
	switch e.Kind {
	case EventStarted:
		op.Kind, op.Value = history.OpStart, e.Detail
	case EventSetupFailed:
		op.Kind, op.Outcome, op.Err = history.OpSetup, history.Fail, e.Detail
	case EventInstances:
		op.Kind, op.Count = history.OpNotify, e.Count
	default:
		return
	}
	l.record(func(rec *history.Recorder) {
		at := rec.Offset(e.Time)
		op.Scheduled, op.Start, op.End = at, at, at
		rec.Add(op)
	})
}

// exit records that one of the caller's processes ended at t: how (value
// history.ExitKilled when a fault killed it), with what error, and how
// many lines it printed that were neither a call nor a report.
func (l *CallLog) exit(t time.Time, other int, value string, err error) {
	op := history.Op{Caller: history.ClientLabel(l.name), Kind: history.OpExit, Count: other, Value: value, Outcome: history.OK}
	if err != nil {
		op.Outcome, op.Err = history.Fail, err.Error()
	}
	l.record(func(rec *history.Recorder) {
		at := rec.Offset(t)
		op.Scheduled, op.Start, op.End = at, at, at
		rec.Add(op)
	})
}
