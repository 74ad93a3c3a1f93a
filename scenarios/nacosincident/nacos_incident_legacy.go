package nacosincident

import (
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/worlds/nacos"
)

// Histories recorded before the real Nacos world ran through rig.Run (up
// to the room's split) kept each caller's reports in the run's data
// (incidentData.Callers) and typed neither the callers nor the calls'
// errors. upgradeIncident reads them as the world records now: every
// report an op of its client, the callers described from the world's
// table, each failed call's error class from its client's message. This
// is the one place a caller's error text is read, and only for those
// histories.

// legacyCaller is a caller's own report in a history of the old format.
type legacyCaller struct {
	Started time.Duration `json:"started_ns"`
	Client  string        `json:"client"`
	Lists   []struct {
		At    time.Duration `json:"at_ns"`
		Count int           `json:"count"`
	} `json:"lists"`
	Other   int            `json:"other_lines,omitempty"`
	Err     string         `json:"err,omitempty"`
	Restart *legacyRestart `json:"restart,omitempty"`
}

// legacyRestart is a caller's restart in a history of the old format.
type legacyRestart struct {
	Killed   time.Duration `json:"killed_ns"`
	Launched time.Duration `json:"launched_ns"`
	Started  time.Duration `json:"started_ns"`
	Client   string        `json:"client,omitempty"`
	SetupErr string        `json:"setup_err,omitempty"`
}

// upgradeIncident returns h as the world records it now: unchanged when
// it describes its callers, else a copy with its callers' reports as ops,
// its callers described and its calls' errors classified.
func upgradeIncident(h *history.History, d incidentData) *history.History {
	if h.Callers != nil || len(d.Callers) == 0 {
		return h
	}
	up := *h
	up.Callers = map[string]history.CallerInfo{}
	up.Ops = make([]history.Op, 0, len(h.Ops))
	for _, op := range h.Ops {
		if op.Kind == history.OpCall && op.Outcome != history.OK && op.ErrClass == "" {
			op.ErrClass = legacyClass(op.Err)
		}
		up.Ops = append(up.Ops, op)
	}
	for name, c := range d.Callers {
		if info, ok := nacos.DescribeCaller(name); ok {
			up.Callers[name] = info
		}
		up.Ops = append(up.Ops, legacyReports(name, c, h.Timeline)...)
	}
	return &up
}

// legacyReports are a caller's reports of the old format as client ops.
func legacyReports(name string, c legacyCaller, end time.Duration) []history.Op {
	label := history.ClientLabel(name)
	at := func(k history.OpKind, t time.Duration) history.Op {
		return history.Op{Caller: label, Kind: k, Scheduled: t, Start: t, End: t, Outcome: history.OK}
	}
	ops := []history.Op{at(history.OpStart, c.Started)}
	ops[0].Value = c.Client
	for _, l := range c.Lists {
		n := at(history.OpNotify, l.At)
		n.Count = l.Count
		ops = append(ops, n)
	}
	if r := c.Restart; r != nil {
		k := at(history.OpExit, r.Killed)
		k.Value = history.ExitKilled
		ops = append(ops, k)
		if r.Started >= 0 {
			st := at(history.OpStart, r.Started)
			st.Value = r.Client
			ops = append(ops, st)
		}
		if r.SetupErr != "" {
			f := at(history.OpSetup, r.Launched)
			f.Outcome, f.Err = history.Fail, r.SetupErr
			ops = append(ops, f)
		}
	}
	exit := at(history.OpExit, end)
	exit.Count = c.Other
	if c.Err != "" {
		exit.Outcome, exit.Err = history.Fail, c.Err
	}
	return append(ops, exit)
}

// legacyClass is a failed call's error class from its client's message:
// Spring Cloud LoadBalancer's "No instances available", nacos-client's
// balancer "no host to srv", nacos-sdk-go's "instance list is empty!"
// (an empty list), and either client's "not connected" (no connection to
// the server).
func legacyClass(err string) history.ErrClass {
	switch {
	case strings.Contains(err, "No instances available"), strings.Contains(err, "no host to srv"),
		strings.Contains(err, "instance list is empty"):
		return history.ErrNoInstance
	case strings.Contains(strings.ToLower(err), "not connected"):
		return history.ErrRegistry
	case err == "":
		return ""
	}
	return history.ErrOther
}

// upgradeHistory is upgradeIncident with the run's data read from h (h
// unchanged when it holds none).
func upgradeHistory(h *history.History) *history.History {
	var d incidentData
	if h.DataInto(&d) != nil {
		return h
	}
	return upgradeIncident(h, d)
}
