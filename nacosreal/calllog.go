package nacosreal

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
	rec  *history.Recorder
	name string
	mu   sync.Mutex
	seq  int
}

// NewCallLog returns the log of the caller called name, recording into rec.
func NewCallLog(rec *history.Recorder, name string) *CallLog {
	return &CallLog{rec: rec, name: name}
}

// Recorder returns the recorder the log records into.
func (l *CallLog) Recorder() *history.Recorder { return l.rec }

// call records one call.
func (l *CallLog) call(c Call) {
	l.mu.Lock()
	seq := l.seq
	l.seq++
	l.mu.Unlock()
	op := history.Op{Caller: l.name, Kind: history.OpCall, Paced: true, Seq: seq, Scheduled: l.rec.Offset(c.Scheduled),
		Start: l.rec.Offset(c.Start), End: l.rec.Offset(c.End), Target: c.Target, Outcome: outcomeOf(c.Outcome), Err: c.Err}
	if op.Outcome != history.OK {
		op.ErrClass = classOf(c.Class)
	}
	l.rec.Add(op)
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
	at := l.rec.Offset(e.Time)
	op := history.Op{Caller: history.ClientLabel(l.name), Scheduled: at, Start: at, End: at, Outcome: history.OK}
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
	l.rec.Add(op)
}

// exit records that one of the caller's processes ended at t: how (value
// history.ExitKilled when a fault killed it), with what error, and how
// many lines it printed that were neither a call nor a report.
func (l *CallLog) exit(t time.Time, other int, value string, err error) {
	at := l.rec.Offset(t)
	op := history.Op{Caller: history.ClientLabel(l.name), Kind: history.OpExit, Scheduled: at, Start: at, End: at,
		Count: other, Value: value, Outcome: history.OK}
	if err != nil {
		op.Outcome, op.Err = history.Fail, err.Error()
	}
	l.rec.Add(op)
}
