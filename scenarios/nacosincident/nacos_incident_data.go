package nacosincident

import (
	"sort"
	"time"

	"sdchaos/history"
	"sdchaos/worlds/nacos"
)

// incidentData is what a nacos-incident run recorded of the server beside
// the history's ops and events (the world's nacos.Record), as the
// server reported it: its list of the service sampled over the run and the
// events of its own logs. Times are offsets from the callers' first call
// (the history's time zero); what came before it is negative. Callers is
// only in histories recorded before the callers recorded their reports as
// ops (read by upgradeIncident).
type incidentData struct {
	// Instances is how many instances registered.
	Instances int `json:"instances"`
	// ServerStart is how long the server took to become ready.
	ServerStart time.Duration `json:"server_start_ns"`
	// Server is the server's list of the service, read every
	// SamplePeriod through its admin API (not through a client link).
	Server       []listSample  `json:"server"`
	SamplePeriod time.Duration `json:"sample_period_ns"`
	// ServerLog holds the pushes, disconnects, ejection probes and
	// ejections the server's own logs recorded.
	ServerLog []serverEvent `json:"server_log"`
	// Callers holds, in a history of the old format, each caller's start
	// and list changes, by name.
	Callers map[string]legacyCaller `json:"callers,omitempty"`
}

// The world's readings, as the judges read them.
type (
	// listSample is one reading of the server's list.
	listSample = nacos.ListSample
	// serverEvent is one line of interest in the server's logs.
	serverEvent = nacos.LogEvent
)

// listChange is a client's list changing to Count instances (its
// listener's report, an OpNotify op).
type listChange struct {
	At    time.Duration
	Count int
}

// clientReport is what a caller's client reported besides its calls (its
// ops under history.ClientLabel): whether it started, the error that ended
// it early ("" when it ran to the end), its list changes, and, once a
// restart killed it, when (−1: never) and whether its second process's
// setup (its listener's subscribe) failed.
type clientReport struct {
	started     bool
	err         string
	lists       []listChange
	killed      time.Duration
	setupFailed bool
}

// clientReports reads each caller's reports from the ops.
func clientReports(ops []history.Op, names []string) map[string]clientReport {
	out := map[string]clientReport{}
	for _, n := range names {
		r := clientReport{killed: -1}
		reports := history.Filter(ops, history.ClientLabel(n))
		for _, op := range reports {
			switch {
			case op.Kind == history.OpStart:
				r.started = true
			case op.Kind == history.OpNotify:
				r.lists = append(r.lists, listChange{At: op.Start, Count: op.Count})
			case op.Kind == history.OpExit && op.Value == history.ExitKilled && r.killed < 0:
				r.killed = op.Start
			case op.Kind == history.OpExit && op.Outcome != history.OK && r.err == "":
				r.err = op.Err
			}
		}
		for _, op := range reports {
			r.setupFailed = r.setupFailed || (op.Kind == history.OpSetup && op.Outcome != history.OK && r.killed >= 0 && op.Start >= r.killed)
		}
		sort.SliceStable(r.lists, func(i, j int) bool { return r.lists[i].At < r.lists[j].At })
		out[n] = r
	}
	return out
}
