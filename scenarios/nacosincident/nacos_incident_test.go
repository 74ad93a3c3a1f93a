package nacosincident

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
	"sdchaos/worlds/nacos"
)

const sec = time.Second

// synthIncident describes a synthetic nacos-incident history: the six
// callers at 40/s for d, fail deciding each call's outcome (class its
// error class, err its text), the fault from start to end, the server
// listing listed(at) every 20 ms, its log events and each caller's list
// changes.
type synthIncident struct {
	fault      string
	start, end time.Duration
	d          time.Duration
	fail       func(c string, at time.Duration) bool
	class      func(c string) history.ErrClass
	err        func(c string) string
	listed     func(at time.Duration) int
	log        []serverEvent
	lists      map[string][]listChange
	errs       map[string]string
	late       time.Duration // every send starts this late
	restart    *synthRestart
}

// synthRestart is a synthetic restart: the restarted callers killed at
// killed, calling again from first (firstOf overrides it per caller),
// their listener's subscribe failed unless subscribed names them,
// plain-cache's calls lasting 450 ms (each read's failed subscribe) unless
// fastReads.
type synthRestart struct {
	killed, first time.Duration
	firstOf       map[string]time.Duration
	subscribed    []string
	fastReads     bool // plain-cache's reads do not wait for a failed subscribe
}

// firstCall is when caller c calls again.
func (r *synthRestart) firstCall(c string) time.Duration {
	if at, ok := r.firstOf[c]; ok {
		return at
	}
	return r.first
}

// history is the synthetic history as the world records it: the calls
// and the clients' reports as ops, the callers described, the server's
// readings as data.
func (x synthIncident) history(t *testing.T) *history.History {
	t.Helper()
	ops, data := x.calls()
	names := callerNamesOf(x.restart != nil)
	h := &history.History{Timeline: x.d, Callers: map[string]history.CallerInfo{}}
	for _, n := range names {
		h.Callers[n], _ = nacos.DescribeCaller(n)
		ops = append(ops, x.reports(n)...)
	}
	evs := x.faults()
	if x.restart != nil {
		ops, evs = x.restart.apply(ops, evs, true)
	}
	h.Ops, h.Events = ops, evs
	if err := h.SetData(data); err != nil {
		t.Fatal(err)
	}
	return h
}

// legacyHistory is the same history as the world recorded it before its
// callers recorded their reports as ops: each caller's start, list
// changes, error and restart in the data, no caller described, no error
// class.
func (x synthIncident) legacyHistory(t *testing.T) *history.History {
	t.Helper()
	ops, data := x.calls()
	for i := range ops {
		ops[i].ErrClass = ""
	}
	data.Callers = map[string]legacyCaller{}
	for _, n := range callerNamesOf(x.restart != nil) {
		c := legacyCaller{Started: -10 * sec, Client: n, Err: x.errs[n]}
		for _, l := range append([]listChange{{At: -10 * sec, Count: 3}}, x.lists[n]...) {
			c.Lists = append(c.Lists, struct {
				At    time.Duration `json:"at_ns"`
				Count int           `json:"count"`
			}{l.At, l.Count})
		}
		data.Callers[n] = c
	}
	evs := x.faults()
	if x.restart != nil {
		ops, evs = x.restart.apply(ops, evs, false)
		for _, n := range x.restart.names() {
			c := data.Callers[n]
			c.Restart = &legacyRestart{Killed: x.restart.killed, Launched: x.restart.killed, Started: x.restart.firstCall(n) - 10*time.Millisecond, Client: n}
			if !slices.Contains(x.restart.subscribed, n) {
				c.Restart.SetupErr = "subscribing: Client not connected"
			}
			data.Callers[n] = c
		}
	}
	h := mkHistory(ops, x.d, evs...)
	if err := h.SetData(data); err != nil {
		t.Fatal(err)
	}
	return h
}

// calls are the callers' calls, the ready op, and the server's readings.
func (x synthIncident) calls() ([]history.Op, incidentData) {
	if x.fail == nil {
		x.fail = func(string, time.Duration) bool { return false }
	}
	if x.listed == nil {
		x.listed = func(time.Duration) int { return 3 }
	}
	ops := scentest.Synth(callerNamesOf(x.restart != nil), 40, x.d, x.fail)
	for i := range ops {
		ops[i].Paced, ops[i].Start, ops[i].End = true, ops[i].Start+x.late, ops[i].End+x.late
		if ops[i].Outcome == history.OK {
			continue
		}
		ops[i].ErrClass = history.ErrNoInstance
		if x.class != nil {
			ops[i].ErrClass = x.class(ops[i].Caller)
		}
		if x.err != nil {
			ops[i].Err = x.err(ops[i].Caller)
		}
	}
	data := incidentData{Instances: 3, ServerStart: 20 * sec, SamplePeriod: 20 * time.Millisecond, ServerLog: append([]serverEvent(nil), x.log...)}
	sort.SliceStable(data.ServerLog, func(i, j int) bool { return data.ServerLog[i].At < data.ServerLog[j].At })
	for at := -5 * sec; at < x.d; at += 20 * time.Millisecond {
		data.Server = append(data.Server, listSample{At: at, Count: x.listed(at), Healthy: x.listed(at)})
	}
	return append(ops, readyOp(data.Server, x.start, 3)), data
}

// readyOp is the world's ready op: the last reading before the fault.
func readyOp(samples []listSample, faultAt time.Duration, instances int) history.Op {
	op := history.Op{Caller: history.ReadyOp, Kind: history.OpGate, Value: fmt.Sprint(instances), Outcome: history.Fail}
	for _, s := range samples {
		if s.At < faultAt && s.Count >= 0 {
			op.Scheduled, op.Start, op.End, op.Count, op.Outcome = s.At, s.At, s.At, s.Count, history.OK
		}
	}
	return op
}

// reports are caller n's client reports: built 10 s before time zero with
// every instance listed, its list changes, its exit at the end (failed
// with its error, if any).
func (x synthIncident) reports(n string) []history.Op {
	at := func(k history.OpKind, t time.Duration) history.Op {
		return history.Op{Caller: history.ClientLabel(n), Kind: k, Scheduled: t, Start: t, End: t, Outcome: history.OK}
	}
	ops := []history.Op{at(history.OpStart, -10*sec)}
	for _, l := range append([]listChange{{At: -10 * sec, Count: 3}}, x.lists[n]...) {
		op := at(history.OpNotify, l.At)
		op.Count = l.Count
		ops = append(ops, op)
	}
	exit := at(history.OpExit, x.d)
	if e := x.errs[n]; e != "" {
		exit.Outcome, exit.Err = history.Fail, e
	}
	return append(ops, exit)
}

// faults are the fault's inject and heal events.
func (x synthIncident) faults() []history.Event {
	kind := faultKind(x.fault)
	return []history.Event{ev(x.start, kind, history.Inject, "instance-0"), ev(x.end, kind, history.Heal, "instance-0")}
}

// between is a fail function: caller c fails from from to to.
func between(c string, from, to time.Duration) func(string, time.Duration) bool {
	return func(name string, at time.Duration) bool { return name == c && at >= from && at < to }
}

// either combines fail functions.
func either(fs ...func(string, time.Duration) bool) func(string, time.Duration) bool {
	return func(c string, at time.Duration) bool {
		for _, f := range fs {
			if f(c, at) {
				return true
			}
		}
		return false
	}
}

// listedBetween lists none in [from, to), every instance otherwise.
func listedBetween(from, to time.Duration) func(time.Duration) int {
	return func(at time.Duration) int {
		if at >= from && at < to {
			return 0
		}
		return 3
	}
}

func ejects(ats ...time.Duration) []serverEvent {
	var out []serverEvent
	for _, at := range ats {
		out = append(out, serverEvent{At: at - ejectProbe, Kind: nacos.EjectProbe, Size: -1}, serverEvent{At: at, Kind: nacos.Eject, Size: -1})
	}
	return out
}

func judgeIncident(t *testing.T, x synthIncident, args ...string) *report.Result {
	t.Helper()
	s := scentest.MustConfigure(t, "nacos-incident", args...).(*nacosIncident)
	return scentest.Judge(s, x.history(t))
}

// TestNacosIncidentJudge18s: the article's 18 s on Nacos 3.1: the server
// removes nothing and nobody fails (the article's claims differ); every
// other outcome breaks the check that names it.
func TestNacosIncidentJudge18s(t *testing.T) {
	base := synthIncident{fault: faultBlackhole, start: 5 * sec, end: 23 * sec, d: 43 * sec}
	res := judgeIncident(t, base)
	scentest.WantVerdict(t, res, report.Differs, "server: removed every instance during the loss (listed none)")
	scentest.WantVerdicts(t, res, map[string]report.Verdict{
		"clients: a caller's client emptied its instance list":       report.Differs,
		"spring: failures during the loss":                           report.Differs,
		"server: ejected a silent client connection during the loss": report.Reproduced,
		"plain-protect: failures during the loss":                    report.Reproduced,
		"spring-fallback: failures after the heal":                   report.Reproduced,
	})
	for _, g := range res.Gates {
		if !g.OK {
			t.Errorf("gate %q failed: %s", g.Name, g.Measured)
		}
	}
	tests := []struct {
		name  string
		edit  func(*synthIncident)
		check string
	}{
		{"an ejection 13 s into the loss", func(x *synthIncident) { x.log = ejects(18 * sec) }, "server: first ejection, after the loss began"},
		{"an instance removed at 18 s", func(x *synthIncident) {
			x.listed = func(at time.Duration) int { return map[bool]int{true: 2, false: 3}[at >= 21*sec && at < 23*sec] }
		}, "server: fewest instances listed during the loss"},
		{"the server empties at 18 s", func(x *synthIncident) { x.listed = listedBetween(21*sec, 23*sec) }, "server: removed every instance during the loss (listed none)"},
		{"a caller fails during the loss", func(x *synthIncident) { x.fail = between("plain-protect", 10*sec, 11*sec) }, "plain-protect: failures during the loss"},
		{"spring fails during the loss", func(x *synthIncident) { x.fail = between("spring", 10*sec, 23*sec) }, "spring: failures during the loss"},
		{"a caller fails after the heal", func(x *synthIncident) { x.fail = between("plain", 23*sec, 24*sec) }, "plain: failures after the heal"},
		{"a client empties what the server never emptied", func(x *synthIncident) {
			x.lists = map[string][]listChange{"go-java-default": {{At: 23 * sec, Count: 0}, {At: 23500 * time.Millisecond, Count: 3}}}
		}, "clients: a caller's client emptied its instance list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := base
			tc.edit(&x)
			scentest.WantVerdict(t, judgeIncident(t, x), report.Outside, tc.check)
		})
	}
}

// TestNacosIncidentJudgeShortLoss: below 14.75 s no connection can be
// ejected (a caller's connection silent at most 10 s + 5 s probe).
func TestNacosIncidentJudgeShortLoss(t *testing.T) {
	x := synthIncident{fault: faultBlackhole, start: 5 * sec, end: 17 * sec, d: 37 * sec}
	scentest.WantVerdict(t, judgeIncident(t, x, "--loss", "12s"), report.Reproduced, "server: ejected a silent client connection during the loss")
	x.log = ejects(16 * sec)
	scentest.WantVerdict(t, judgeIncident(t, x, "--loss", "12s"), report.Outside, "server: ejected a silent client connection during the loss")
}

// loss40s is the shape of the 40 s run in results/nacos-real: ejections
// 21.9 s and 29.9 s into the loss, the server empty from 30.4 s until
// 0.8 s after the heal, the unprotected clients answered the empty list
// after the heal, plain-protect failing its one raw read.
func loss40s() synthIncident {
	return synthIncident{fault: faultBlackhole, start: 5 * sec, end: 45 * sec, d: 65 * sec,
		log:    ejects(26900*time.Millisecond, 26910*time.Millisecond, 34900*time.Millisecond),
		listed: listedBetween(35400*time.Millisecond, 45800*time.Millisecond),
		fail: either(between("plain", 45400*time.Millisecond, 45800*time.Millisecond),
			between("go-java-default", 45300*time.Millisecond, 45800*time.Millisecond),
			between("plain-protect", 45300*time.Millisecond, 45325*time.Millisecond)),
		lists: map[string][]listChange{
			"plain":           {{At: 45375 * time.Millisecond, Count: 0}, {At: 45788 * time.Millisecond, Count: 3}},
			"go-java-default": {{At: 45255 * time.Millisecond, Count: 0}, {At: 45771 * time.Millisecond, Count: 3}},
		}}
}

// TestNacosIncidentJudge40s: a loss beyond the ejector's rules empties the
// server, as the article's registry did; the bands of removal and of each
// caller's failures after the heal each break on the outcome they forbid.
func TestNacosIncidentJudge40s(t *testing.T) {
	res := judgeIncident(t, loss40s(), "--loss", "40s")
	// The server empties as the article says; spring still fails nothing
	// during the loss (nothing reaches a blackholed client): differs.
	scentest.WantVerdict(t, res, report.Differs, "spring: failures during the loss")
	scentest.WantVerdicts(t, res, map[string]report.Verdict{
		"server: removed every instance during the loss (listed none)":      report.Reproduced,
		"clients: a caller's client emptied its instance list":              report.Reproduced,
		"plain: failures after the heal (the server had removed instances)": report.Reproduced,
		// Its one raw read fails where the article's protection failed none.
		"plain-protect: failures after the heal (the server had removed instances)": report.Differs,
	})
	tests := []struct {
		name  string
		edit  func(*synthIncident)
		check string
	}{
		{"no ejection in 40 s", func(x *synthIncident) { x.log = nil }, "server: ejected a silent client connection during the loss"},
		{"the server keeps an instance", func(x *synthIncident) { x.listed = nil }, "server: removed every instance during the loss (listed none)"},
		{"an ejection too early", func(x *synthIncident) { x.log = ejects(17*sec, 34900*time.Millisecond) }, "server: first ejection, after the loss began"},
		{"listed none too late", func(x *synthIncident) { x.listed = listedBetween(39500*time.Millisecond, 45800*time.Millisecond) },
			"server: listed no instance, after the loss began"},
		{"plain fails long after the heal", func(x *synthIncident) { x.fail = between("plain", 45*sec, 50*sec) },
			"plain: failures after the heal (the server had removed instances)"},
		{"spring holds an empty list", func(x *synthIncident) { x.fail = between("spring", 45*sec, 47*sec) },
			"spring: failures after the heal (the server had removed instances)"},
		{"go-sdk takes the empty list", func(x *synthIncident) { x.fail = between("go-sdk", 45300*time.Millisecond, 45400*time.Millisecond) },
			"go-sdk: failures after the heal (the server had removed instances)"},
		{"plain-protect takes more than its raw read", func(x *synthIncident) { x.fail = between("plain-protect", 45*sec, 46*sec) },
			"plain-protect: failures after the heal (the server had removed instances)"},
		{"the fallback fails", func(x *synthIncident) { x.fail = between("spring-fallback", 46*sec, 46100*time.Millisecond) },
			"spring-fallback: failures after the heal (the server had removed instances)"},
		{"a client fails during the loss", func(x *synthIncident) { x.fail = between("go-java-default", 40*sec, 45*sec) }, "go-java-default: failures during the loss"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := loss40s()
			tc.edit(&x)
			scentest.WantVerdict(t, judgeIncident(t, x, "--loss", "40s"), report.Outside, tc.check)
		})
	}
}

// emptyRegistry is the shape of the empty-40s runs: the unprotected clients
// fail from the push of the empty list to the push of the re-registration,
// spring from LoadBalancer's expiry 30.6 s in, the fixes nothing.
func emptyRegistry() synthIncident {
	return synthIncident{fault: faultEmpty, start: 5 * sec, end: 45 * sec, d: 65 * sec,
		listed: listedBetween(5600*time.Millisecond, 45600*time.Millisecond),
		fail: either(between("plain", 5700*time.Millisecond, 45600*time.Millisecond),
			between("go-java-default", 5700*time.Millisecond, 45600*time.Millisecond),
			between("spring", 35600*time.Millisecond, 45600*time.Millisecond)),
		err: func(c string) string {
			if c == "spring" {
				return "java.lang.IllegalStateException: No instances available for svc"
			}
			return "instance list is empty!"
		}}
}

// TestNacosIncidentJudgeEmpty: the empty registry reproduces the article's
// "No instances available" once LoadBalancer's cache expires; the fixes
// hold; each band breaks on the outcome it forbids.
func TestNacosIncidentJudgeEmpty(t *testing.T) {
	args := []string{"--fault", "empty", "--loss", "40s"}
	res := judgeIncident(t, emptyRegistry(), args...)
	scentest.WantVerdict(t, res, report.Reproduced, `spring: failed with "No instances available" while the registry was empty`)
	tests := []struct {
		name  string
		edit  func(*synthIncident)
		check string
	}{
		{"spring never fails", func(x *synthIncident) {
			x.fail = either(between("plain", 5700*time.Millisecond, 45600*time.Millisecond), between("go-java-default", 5700*time.Millisecond, 45600*time.Millisecond))
		}, `spring: failed with "No instances available" while the registry was empty`},
		{"spring fails too late", func(x *synthIncident) {
			x.fail = either(x.fail, between("spring", 42*sec, 45600*time.Millisecond))
			f := x.fail
			x.fail = func(c string, at time.Duration) bool { return f(c, at) && (c != "spring" || at >= 42*sec) }
		}, `spring: first "No instances available", after the registry emptied`},
		{"spring serves between failures", func(x *synthIncident) {
			f := x.fail
			x.fail = func(c string, at time.Duration) bool {
				return f(c, at) && (c != "spring" || at < 40*sec || at >= 41*sec)
			}
		}, `spring: failed share from its first "No instances available" until the re-registration`},
		{"plain serves from an empty registry", func(x *synthIncident) {
			f := x.fail
			x.fail = func(c string, at time.Duration) bool { return f(c, at) && (c != "plain" || at >= 20*sec) }
		}, "plain: failed share while its list was empty"},
		{"plain fails after the re-registration", func(x *synthIncident) { x.fail = either(x.fail, between("plain", 50*sec, 51*sec)) },
			"plain: failures after the re-registration"},
		{"the fallback fails", func(x *synthIncident) { x.fail = either(x.fail, between("spring-fallback", 40*sec, 41*sec)) },
			"spring-fallback: failures while the registry was empty"},
		{"push-empty protection fails", func(x *synthIncident) { x.fail = either(x.fail, between("plain-protect", 6*sec, 7*sec)) },
			"plain-protect: failures while the registry was empty"},
		{"the server keeps listing", func(x *synthIncident) { x.listed = nil }, "server: listed no instance while the instances were deregistered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := emptyRegistry()
			tc.edit(&x)
			scentest.WantVerdict(t, judgeIncident(t, x, args...), report.Outside, tc.check)
		})
	}
}

// TestNacosIncidentGates: a run the world did not let judge is invalid:
// a caller that ended early or made too few calls, a failure in the second
// before the fault, a fault that did not last --loss; and the harness's
// generic gates (the ready op, the paced sends) apply to its history.
func TestNacosIncidentGates(t *testing.T) {
	tests := []struct {
		name string
		edit func(*synthIncident)
		gate string
	}{
		{"a caller ended early", func(x *synthIncident) { x.errs = map[string]string{"spring": "exit status 1"} }, "every caller ran to the end"},
		{"failures before the fault", func(x *synthIncident) { x.fail = between("go-sdk", 4500*time.Millisecond, 4600*time.Millisecond) },
			"every caller served in the second before the fault"},
		{"the fault was short", func(x *synthIncident) { x.end = 20 * sec }, "the fault lasted --loss"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := synthIncident{fault: faultBlackhole, start: 5 * sec, end: 23 * sec, d: 43 * sec}
			tc.edit(&x)
			res := judgeIncident(t, x)
			if res.Verdict != report.Invalid || gateOK(res.Gates, tc.gate) {
				t.Errorf("verdict %s, gate %q ok: %v", res.Verdict, tc.gate, gateOK(res.Gates, tc.gate))
			}
		})
	}
	t.Run("too few calls", func(t *testing.T) {
		x := synthIncident{fault: faultBlackhole, start: 5 * sec, end: 23 * sec, d: 43 * sec}
		h := x.history(t)
		h.Ops = within(h.Ops, "plain", 0, 40*sec)
		res := scentest.Judge(scentest.MustConfigure(t, "nacos-incident"), h)
		if res.Verdict != report.Invalid || gateOK(res.Gates, "every caller made its calls at --rate") {
			t.Errorf("a caller that stopped 3 s early: verdict %s", res.Verdict)
		}
	})
	generic := map[string]synthIncident{
		"registry healthy, every instance registered before the first fault": {fault: faultBlackhole, start: 5 * sec, end: 23 * sec, d: 43 * sec,
			listed: func(at time.Duration) int { return map[bool]int{true: 2, false: 3}[at < 5*sec] }},
		"the callers kept their schedule (the harness was not starved)": {fault: faultBlackhole, start: 5 * sec, end: 23 * sec, d: 43 * sec, late: 150 * time.Millisecond},
	}
	for name, x := range generic {
		t.Run(name, func(t *testing.T) {
			gs := report.Gates(x.history(t))
			if gateOK(gs, name) || !hasGate(gs, name) {
				t.Errorf("generic gate %q did not fail: %+v", name, gs)
			}
		})
	}
}

func gateOK(gs []report.Gate, name string) bool {
	for _, g := range gs {
		if g.Name == name {
			return g.OK
		}
	}
	return true
}

func hasGate(gs []report.Gate, name string) bool {
	for _, g := range gs {
		if g.Name == name {
			return true
		}
	}
	return false
}

// TestNacosIncidentInvalidWithoutData: a history without the scenario's
// data or its fault cannot be judged.
func TestNacosIncidentInvalidWithoutData(t *testing.T) {
	s := scentest.MustConfigure(t, "nacos-incident")
	h := (synthIncident{fault: faultBlackhole, start: 5 * sec, end: 23 * sec, d: 43 * sec}).history(t)
	noData := *h
	noData.Data = nil
	noFault := *h
	noFault.Events = nil
	for name, hh := range map[string]*history.History{"no data": &noData, "no fault": &noFault} {
		if res := scentest.Judge(s, hh); res.Verdict != report.Invalid {
			t.Errorf("%s: verdict %s, want invalid", name, res.Verdict)
		}
	}
}

// TestNacosIncidentValidation: the flags' limits.
func TestNacosIncidentValidation(t *testing.T) {
	scentest.CheckValidation(t, []scentest.ValidationCase{
		{Scenario: "nacos-incident"},
		{Scenario: "nacos-incident", Args: []string{"--fault", "empty", "--loss", "40s"}},
		{Scenario: "nacos-incident", Args: []string{"--fault", "partition"}, WantErr: `--fault "partition"`},
		{Scenario: "nacos-incident", Args: []string{"--loss", "0s"}, WantErr: "--loss (0s)"},
		{Scenario: "nacos-incident", Args: []string{"--after", "5s"}, WantErr: "raise --after"},
		{Scenario: "nacos-incident", Args: []string{"--rate", "500"}, WantErr: "--rate (500)"},
		{Scenario: "nacos-incident", Args: []string{"--instances", "0"}, WantErr: "--instances (0)"},
		{Scenario: "nacos-incident", Args: []string{"--fault-at", "500ms"}, WantErr: "--fault-at (500ms)"},
		{Scenario: "nacos-incident", Args: []string{"--port-base", "64000"}, WantErr: "--port-base (64000)"},
	})
}

// TestNacosIncidentPlot draws the incident's figure from the 40 s shape:
// the callers that never failed in one panel, the others in their own, the
// loss shaded, the server's list with its ejections marked and the
// clients whose lists changed.
func TestNacosIncidentPlot(t *testing.T) {
	h := loss40s().history(t)
	d := scentest.PlotsOf(t, "nacos-incident", h, "per-second")
	d.Has(t, "identical: spring, spring-fallback, go-sdk — 40 ok / 0 failed every second",
		"plain: nacos-client, push-empty protection off (its default)", "plain-protect: nacos-client, push-empty protection on",
		"go-java-default: nacos-sdk-go in Java's defaults (an empty list replaces its cache)",
		"What the Nacos server and each client that changed listed (every client link blackholed; a row each, 0–3 instances)",
		"server (admin API, read every 20ms)", "plain's client", "go-java-default's client",
		"server: 2 connections ejected (the probe went unanswered)", "server: 1 connection ejected (the probe went unanswered)")
	d.AtLeastShaded(t, 10) // five panels: the window and its bar
	if slices.Contains(d.Texts, "go-sdk's client") {
		t.Error("a client whose list never changed is drawn")
	}
}

// names are the callers the restart restarts.
func (r *synthRestart) names() []string {
	var out []string
	for _, c := range incidentCallersOf(true) {
		if c.restart != keepsRunning {
			out = append(out, c.name)
		}
	}
	return out
}

// apply removes the restarted callers' calls due while they were down and
// adds the restart's event and, with reports, each restarted client's
// reports: its kill, its second start, its failed subscribe.
func (r *synthRestart) apply(ops []history.Op, evs []history.Event, reports bool) ([]history.Op, []history.Event) {
	for _, n := range r.names() {
		ops = without(ops, n, r.killed, r.firstCall(n))
		if n == "plain-cache" && !r.fastReads {
			slow(ops, n, r.firstCall(n), 450*time.Millisecond)
		}
		if !reports {
			continue
		}
		at := func(k history.OpKind, t time.Duration) history.Op {
			return history.Op{Caller: history.ClientLabel(n), Kind: k, Scheduled: t, Start: t, End: t, Outcome: history.OK}
		}
		killed, started := at(history.OpExit, r.killed), at(history.OpStart, r.firstCall(n)-10*time.Millisecond)
		killed.Value = history.ExitKilled
		ops = append(ops, killed, started)
		if !slices.Contains(r.subscribed, n) {
			f := at(history.OpSetup, r.killed+time.Second)
			f.Outcome, f.Err = history.Fail, "subscribing: Client not connected"
			ops = append(ops, f)
		}
	}
	evs = append(evs, ev(r.killed, history.RestartCallers, history.Once, r.names()...))
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].At < evs[j].At })
	return ops, evs
}

// slow makes caller's calls due from from on last d.
func slow(ops []history.Op, caller string, from, d time.Duration) {
	for i := range ops {
		if ops[i].Caller == caller && ops[i].Scheduled >= from {
			ops[i].End = ops[i].Start + d
		}
	}
}

// without drops the ops of caller scheduled in [from, to).
func without(ops []history.Op, caller string, from, to time.Duration) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.Caller != caller || op.Scheduled < from || op.Scheduled >= to {
			out = append(out, op)
		}
	}
	return out
}

// TestNacosIncidentJudgesTheOldFormatAlike: a history of the old format
// (the callers' reports in the data, no caller described, no error class)
// is judged as the same run recorded now.
func TestNacosIncidentJudgesTheOldFormatAlike(t *testing.T) {
	tests := []struct {
		name string
		x    synthIncident
		args []string
	}{
		{"18 s", synthIncident{fault: faultBlackhole, start: 5 * sec, end: 23 * sec, d: 43 * sec}, nil},
		{"40 s", loss40s(), []string{"--loss", "40s"}},
		{"empty", emptyRegistry(), []string{"--fault", "empty", "--loss", "40s"}},
		{"restart", restart40s(), []string{"--loss", "40s", "--restart-at", "7s"}},
		{"a caller ended early", withErrs(loss40s(), "plain", "exit status 1"), []string{"--loss", "40s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := scentest.MustConfigure(t, "nacos-incident", tc.args...).(*nacosIncident)
			sameJudgement(t, scentest.Judge(s, tc.x.history(t)), scentest.Judge(s, tc.x.legacyHistory(t)))
		})
	}
}

func withErrs(x synthIncident, caller, err string) synthIncident {
	x.errs = map[string]string{caller: err}
	return x
}
