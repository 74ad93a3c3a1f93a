package nacosincident

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/nacosreal"
)

// incidentData is what a nacos-incident run recorded beside its calls, as
// the real pieces reported it (nothing modelled): the server's list of the
// service sampled over the run, the events of the server's own logs, and
// each caller's start and list changes. Times are offsets from the
// callers' first call (the history's time zero); what came before it is
// negative.
type incidentData struct {
	// Fault is the run's fault; Instances how many instances registered.
	Fault     string `json:"fault"`
	Instances int    `json:"instances"`
	// ServerStart is how long the server took to become ready.
	ServerStart time.Duration `json:"server_start_ns"`
	// Server is the server's list of the service, read every
	// SamplePeriod through its admin API (not through a client link).
	Server       []listSample  `json:"server"`
	SamplePeriod time.Duration `json:"sample_period_ns"`
	// ServerLog holds the pushes, disconnects, ejection probes and
	// ejections the server's own logs recorded.
	ServerLog []serverEvent `json:"server_log"`
	// Callers holds each caller's start and list changes, by name.
	Callers map[string]callerRecord `json:"callers"`
}

// listSample is one reading of the server's list: Count instances listed
// (−1 when the reading failed, Err saying why), Healthy of them healthy.
type listSample struct {
	At      time.Duration `json:"at_ns"`
	Count   int           `json:"count"`
	Healthy int           `json:"healthy"`
	Err     string        `json:"err,omitempty"`
}

// serverEvent is one line of interest in the server's logs: Kind one of
// nacosreal's PushOK, PushFailed, Disconnect, EjectProbe, Eject; Size a
// push's instances (−1 otherwise); Detail the connection id or revision.
type serverEvent struct {
	At     time.Duration `json:"at_ns"`
	Kind   string        `json:"kind"`
	Size   int           `json:"size"`
	Detail string        `json:"detail,omitempty"`
}

// callerRecord is a caller's own report besides its calls: when its client
// was built (Started, with Client naming it and its switches), every list
// change its client's listener saw, how many other lines it printed, and
// the error that ended it early ("" when it ran to the end).
type callerRecord struct {
	Started time.Duration `json:"started_ns"`
	Client  string        `json:"client"`
	Lists   []listChange  `json:"lists"`
	Other   int           `json:"other_lines,omitempty"`
	Err     string        `json:"err,omitempty"`
	// Restart is the caller's restart (nil when it was not restarted).
	Restart *restartRecord `json:"restart,omitempty"`
}

// restartRecord is a caller's restart: when its first process was killed
// and its second launched, when the second's client was built and its
// calls began (Started, −1 when it never was; Client names its switches),
// and the error of its setup (its listener's subscribe) when that failed.
type restartRecord struct {
	Killed   time.Duration `json:"killed_ns"`
	Launched time.Duration `json:"launched_ns"`
	Started  time.Duration `json:"started_ns"`
	Client   string        `json:"client,omitempty"`
	SetupErr string        `json:"setup_err,omitempty"`
}

// listChange is a client's list changing to Count instances.
type listChange struct {
	At    time.Duration `json:"at_ns"`
	Count int           `json:"count"`
}

// incidentHistory turns what nacosreal.RunJitter recorded into the
// harness's history: every call an op (paced, kind call), the fault as a
// typed inject and heal, the ready gate from the server's last reading
// before the fault, and the rest as the history's data.
func incidentHistory(res nacosreal.JitterResult, spec nacosreal.JitterSpec, serverStart time.Duration) (*history.History, error) {
	rec := history.NewRecorder(res.T0)
	for _, name := range res.Names() {
		addCalls(rec, name, res.Callers[name].Calls)
	}
	addFault(rec, res, spec.Instances)
	data := incidentRecord(rec, res, spec.Instances, serverStart)
	addRestart(rec, res, data)
	data.SamplePeriod = spec.Sample
	rec.Add(readyOp(data.Server, rec.Offset(res.FaultAt), spec.Instances))
	h := rec.History()
	if err := h.SetData(data); err != nil {
		return nil, err
	}
	return &h, nil
}

// addCalls records a caller's calls as paced call ops.
func addCalls(rec *history.Recorder, name string, calls []nacosreal.Call) {
	sorted := append([]nacosreal.Call(nil), calls...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Scheduled.Before(sorted[j].Scheduled) })
	for i, c := range sorted {
		rec.Add(history.Op{Caller: name, Kind: history.OpCall, Paced: true, Seq: i, Scheduled: rec.Offset(c.Scheduled),
			Start: rec.Offset(c.Start), End: rec.Offset(c.End), Target: c.Target, Outcome: outcomeOf(c.Outcome), Err: c.Err})
	}
}

// outcomeOf maps the exec protocol's outcome to the history's.
func outcomeOf(o string) history.Outcome {
	switch o {
	case nacosreal.OK:
		return history.OK
	case nacosreal.Unknown:
		return history.Unknown
	}
	return history.Fail
}

// addFault records the fault's inject at FaultAt and its heal at HealAt:
// the blackhole of every client link (the instances' and the callers'),
// or every instance deregistered.
func addFault(rec *history.Recorder, res nacosreal.JitterResult, instances int) {
	names := instanceNames(instances)
	kind, label := history.DeregisterInstances, fmt.Sprintf("deregister every instance (%d, endpoints up)", instances)
	if res.Fault == nacosreal.FaultBlackhole {
		names = append(names, res.Names()...)
		kind, label = history.BlackholeLinks, fmt.Sprintf("blackhole every client link (%d)", len(names))
	}
	rec.Event(res.FaultAt, history.Event{Kind: kind, Phase: history.Inject, Targets: names, Label: label})
	rec.Event(res.HealAt, history.Event{Kind: kind, Phase: history.Heal, Targets: names, Label: "healed: " + label})
}

// instanceNames are the instances' names, as nacosreal's run names them.
func instanceNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "instance-" + strconv.Itoa(i)
	}
	return out
}

// incidentRecord converts the server's readings and logs and the callers'
// reports to offsets from the recorder's zero.
func incidentRecord(rec *history.Recorder, res nacosreal.JitterResult, instances int, serverStart time.Duration) incidentData {
	d := incidentData{Fault: res.Fault, Instances: instances, ServerStart: serverStart, Callers: map[string]callerRecord{}}
	for _, s := range res.Server {
		d.Server = append(d.Server, listSample{At: rec.Offset(s.At), Count: s.Count, Healthy: s.Healthy, Err: s.Err})
	}
	for _, e := range res.ServerLog {
		d.ServerLog = append(d.ServerLog, serverEvent{At: rec.Offset(e.At), Kind: e.Kind, Size: e.Size, Detail: e.Detail})
	}
	for _, name := range res.Names() {
		r, restarted := res.Restarts[name]
		d.Callers[name] = callerOf(rec, res.Callers[name], res.Errors[name], r, restarted)
	}
	return d
}

// callerOf is one caller's record; a restarted caller's events after its
// kill are its second process's.
func callerOf(rec *history.Recorder, r nacosreal.Result, err string, rs nacosreal.Restart, restarted bool) callerRecord {
	c := callerRecord{Other: r.Other, Err: err}
	if restarted {
		c.Restart = &restartRecord{Killed: rec.Offset(rs.Killed), Launched: rec.Offset(rs.Launched), Started: -1}
	}
	for _, e := range r.Events {
		second := restarted && !e.Time.Before(rs.Killed)
		switch {
		case e.Kind == nacosreal.EventStarted && second:
			c.Restart.Started, c.Restart.Client = rec.Offset(e.Time), e.Detail
		case e.Kind == nacosreal.EventStarted:
			c.Started, c.Client = rec.Offset(e.Time), e.Detail
		case e.Kind == nacosreal.EventSetupFailed && second:
			c.Restart.SetupErr = e.Detail
		case e.Kind == nacosreal.EventInstances:
			c.Lists = append(c.Lists, listChange{At: rec.Offset(e.Time), Count: e.Count})
		}
	}
	sort.SliceStable(c.Lists, func(i, j int) bool { return c.Lists[i].At < c.Lists[j].At })
	return c
}

// readyOp is the generic ready gate's op: the server's last successful
// reading before the fault, and whether it listed every instance.
func readyOp(samples []listSample, faultAt time.Duration, instances int) history.Op {
	op := history.Op{Caller: history.ReadyOp, Kind: history.OpGate, Value: strconv.Itoa(instances), Outcome: history.Fail,
		Err: "no reading of the server's list before the fault"}
	for _, s := range samples {
		if s.At >= faultAt {
			break
		}
		if s.Count >= 0 {
			op.Scheduled, op.Start, op.End, op.Count, op.Outcome, op.Err = s.At, s.At, s.At, s.Count, history.OK, ""
		}
	}
	return op
}

// addRestart records the restart as one typed restart-callers event when
// the callers were killed (its Err set when one could not be started
// again); when each called again is in the data (its restart record).
func addRestart(rec *history.Recorder, res nacosreal.JitterResult, d incidentData) {
	names := restartedNames(d)
	if len(names) == 0 {
		return
	}
	first := res.Restarts[names[0]]
	var errs []string
	for _, n := range names {
		r := res.Restarts[n]
		if r.Err != "" {
			errs = append(errs, n+": "+r.Err)
		}
		if r.Killed.Before(first.Killed) {
			first = r
		}
	}
	rec.Event(first.Killed, history.Event{Kind: history.RestartCallers, Phase: history.Once, Targets: names, Err: strings.Join(errs, "; "),
		Label: fmt.Sprintf("restart %s (killed, started again on their disk caches)", strings.Join(names, ", "))})
}

// restartedNames are the callers d records a restart of, sorted.
func restartedNames(d incidentData) []string {
	var out []string
	for n, c := range d.Callers {
		if c.Restart != nil {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
