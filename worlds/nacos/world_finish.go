package nacos

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"sdchaos/history"
)

// Record is what a run of the world observed of the server and its instances besides the
// history's ops and events, each reading as it was taken (nothing condensed): the server's
// list of the service, its own logs' events, its readiness, CPU time and RSS, and the
// instances' first registrations. Times are offsets from the recorder's zero.
type Record struct {
	// Instances is how many instances registered; ServerStart how long the server took to
	// become ready (a cluster: from the first member's launch to the cluster serving).
	Instances   int           `json:"instances"`
	ServerStart time.Duration `json:"server_start_ns"`
	// Listed is when the server first listed every instance; End where the run ended.
	Listed time.Duration `json:"listed_ns"`
	End    time.Duration `json:"end_ns"`
	// Server is the server's list of the service, read every SamplePeriod through its admin
	// API (not through a client link).
	SamplePeriod time.Duration `json:"sample_period_ns"`
	Server       []ListSample  `json:"server"`
	// ServerLog holds the pushes, disconnects, ejection probes and ejections the server's own
	// logs recorded.
	ServerLog []LogEvent `json:"server_log"`
	// Probes are the server's readiness, CPU time and RSS, read every ProbePeriod (none
	// without).
	ProbePeriod time.Duration `json:"probe_period_ns,omitempty"`
	Probes      []ProbeSample `json:"probes,omitempty"`
	// Registrations are the instances' first registrations, by instance.
	Registrations []Registration `json:"registrations"`
	// Members are the cluster's members, in cluster.conf order (none for a single server;
	// Server and ServerLog are then the first member's).
	Members []MemberRecord `json:"members,omitempty"`
	// MembersCPU is each member's JVM CPU time (user + system) when the cluster was serving.
	MembersCPU []time.Duration `json:"members_cpu_ns,omitempty"`
	// Owners are the members holding each instance's connection once every instance was
	// listed (cluster only).
	Owners []OwnerRecord `json:"owners,omitempty"`
	// CPULimit describes the server's CPU quota ("" without); Throttled of ThrottlePeriods
	// periods its JVM wanted more, waiting ThrottledTime in all (the cgroup's cpu.stat).
	CPULimit        string        `json:"cpu_limit,omitempty"`
	Throttled       int64         `json:"throttled,omitempty"`
	ThrottlePeriods int64         `json:"throttle_periods,omitempty"`
	ThrottledTime   time.Duration `json:"throttled_ns,omitempty"`
}

// ListSample is one reading of the server's list: Count instances listed (−1 when the reading
// failed, Err saying why), Healthy of them healthy.
type ListSample struct {
	At      time.Duration `json:"at_ns"`
	Count   int           `json:"count"`
	Healthy int           `json:"healthy"`
	Err     string        `json:"err,omitempty"`
}

// LogEvent is one line of interest in the server's logs: Kind one of PushOK, PushFailed,
// Disconnect, EjectProbe, Eject; Size a push's instances (−1 otherwise); Detail the
// connection id or revision.
type LogEvent struct {
	At     time.Duration `json:"at_ns"`
	Kind   string        `json:"kind"`
	Size   int           `json:"size"`
	Detail string        `json:"detail,omitempty"`
}

// ProbeSample is one reading of the server: its readiness endpoint's failure ("" when ready),
// the JVM's CPU time so far and its RSS in bytes (−1 when unread).
type ProbeSample struct {
	At       time.Duration `json:"at_ns"`
	ReadyErr string        `json:"ready_err,omitempty"`
	CPU      time.Duration `json:"cpu_ns"`
	// CPUAt is when CPU was read (0 in records made before it was kept: At stands in).
	CPUAt time.Duration `json:"cpu_at_ns,omitempty"`
	RSS   int64         `json:"rss"`
}

// Registration is an instance's first registration: its call's span (the client's creation
// and RegisterInstance, with retries) and error.
type Registration struct {
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
	Err   string        `json:"err,omitempty"`
}

// Finish reads the server's logs, records the ready gate (when the spec asks), reports the
// server's memory, and returns where the run ends and its Record.
func (w *World) Finish(_ context.Context, rec *history.Recorder) (time.Duration, any, error) {
	evs, err := w.server.Events()
	if err != nil {
		return 0, nil, fmt.Errorf("reading the server's logs: %w", err)
	}
	r := w.record(rec, evs)
	r.CPULimit, r.Throttled, r.ThrottlePeriods, r.ThrottledTime = w.limitRecord()
	if w.cluster != nil {
		if r.Members, err = w.memberRecords(rec); err != nil {
			return 0, nil, fmt.Errorf("reading the members: %w", err)
		}
		r.Owners = w.ownerRecords()
		r.ServerStart, r.MembersCPU = w.cluster.Timing().Serving, w.cluster.Timing().CPU
	}
	if w.spec.Ready {
		rec.Add(readyOp(r.Server, firstInject(rec.Events(), w.end), w.spec.Instances))
	}
	w.logRSS()
	return w.end, r, nil
}

// record is the run's Record, times from rec's zero.
func (w *World) record(rec *history.Recorder, evs []ServerEvent) Record {
	r := Record{Instances: w.spec.Instances, ServerStart: w.server.StartupTime(), Listed: rec.Offset(w.listed), End: w.end,
		SamplePeriod: w.spec.Sample, ProbePeriod: w.spec.Probe}
	for _, s := range w.sampler.all() {
		r.Server = append(r.Server, ListSample{At: rec.Offset(s.At), Count: s.Count, Healthy: s.Healthy, Err: s.Err})
	}
	for _, e := range evs {
		r.ServerLog = append(r.ServerLog, LogEvent{At: rec.Offset(e.At), Kind: e.Kind, Size: e.Size, Detail: e.Detail})
	}
	if w.prober != nil {
		for _, p := range w.prober.probes {
			r.Probes = append(r.Probes, ProbeSample{At: rec.Offset(p.At), ReadyErr: p.ReadyErr, CPU: p.CPU, CPUAt: cpuAt(rec, p), RSS: p.RSS})
		}
	}
	for _, in := range w.instances {
		g := Registration{Start: rec.Offset(in.first.start), End: rec.Offset(in.first.end)}
		if in.first.err != nil {
			g.Err = in.first.err.Error()
		}
		r.Registrations = append(r.Registrations, g)
	}
	return r
}

// firstInject is when the first fault was injected (end when none was).
func firstInject(evs history.Events, end time.Duration) time.Duration {
	for _, e := range evs {
		if e.Phase == history.Inject {
			return e.At
		}
	}
	return end
}

// readyOp is the generic ready gate's op: the server's last successful reading before the
// first fault, and whether it listed every instance.
func readyOp(samples []ListSample, faultAt time.Duration, instances int) history.Op {
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

// logRSS logs the server's resident set size (the callers' JVMs have exited by then).
func (w *World) logRSS() {
	if n, err := w.server.RSS(); err == nil {
		w.spec.Logf("RSS %s %d MiB at the end", w.server.Name(), n>>20)
	}
}

// cpuAt is when p's CPU time was read, from rec's zero (0 when it was not read).
func cpuAt(rec *history.Recorder, p Probe) time.Duration {
	if p.CPUAt.IsZero() {
		return 0
	}
	return rec.Offset(p.CPUAt)
}

// CPUReadAt is when the sample's CPU time was read: CPUAt, or At in a record made before
// CPUAt was kept (whose rates of CPU use span the readiness call's delay too).
func (p ProbeSample) CPUReadAt() time.Duration {
	if p.CPUAt != 0 {
		return p.CPUAt
	}
	return p.At
}
