package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, exitReproduced},
		{errNotReproduced, exitNotReproduced},
		{fmt.Errorf("x: %w", errInvalid), exitInvalid},
		{scenarios.Usagef("bad flag"), exitError},
		{errors.New("starting etcd: too many open files"), exitEnvironment},
		{errInterrupted, exitInterrupted},
	}
	for _, tc := range tests {
		if got := exitCode(tc.err, &bytes.Buffer{}); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// synthResult is a result of one check with the given measurement.
func synthResult(v float64) *report.Result {
	r := report.NewResult("demo")
	r.AddCheck(report.Band("latency", 0, 10, " s").Judge(v))
	r.Metrics["latency_s"] = v
	r.AddSamples()
	r.Finish()
	return r
}

func aggregateOf(vals ...float64) *report.Result {
	var rs []*report.Result
	var sums []report.RunSummary
	for i, v := range vals {
		rs = append(rs, synthResult(v))
		sums = append(sums, report.RunSummary{Seed: int64(i + 1)})
	}
	return report.Aggregate(rs, sums)
}

func TestCompareFlagsAMovedCheckAndNotAnUnchangedOne(t *testing.T) {
	base := aggregateOf(1.0, 1.1, 0.9, 1.05, 0.95, 1.0)
	same := aggregateOf(1.02, 0.98, 1.08, 0.93, 1.01, 0.99)
	moved := aggregateOf(2.0, 2.1, 1.9, 2.05, 1.95, 2.0)
	var b bytes.Buffer
	if _, err := renderComparison(map[string]*report.Result{"demo": base}, map[string]*report.Result{"demo": same}, &b); err != nil {
		t.Errorf("an unchanged candidate was flagged: %v\n%s", err, b.String())
	}
	b.Reset()
	if _, err := renderComparison(map[string]*report.Result{"demo": base}, map[string]*report.Result{"demo": moved}, &b); !errors.Is(err, errNotReproduced) {
		t.Errorf("a doubled latency was not flagged (err %v)\n%s", err, b.String())
	}
	if !strings.Contains(b.String(), "MOVED") {
		t.Errorf("the table does not mark the moved check:\n%s", b.String())
	}
}

func TestAggregateVerdicts(t *testing.T) {
	tests := []struct {
		name string
		vals []float64
		want report.Verdict
	}{
		{"inside", []float64{1, 2, 3, 2, 1, 2, 3}, report.Reproduced},
		{"outside", []float64{11, 12, 13, 12, 11, 12, 13}, report.Outside},
		{"straddling the edge", []float64{8, 9, 10, 11, 12, 9, 11}, report.Inconclusive},
		{"too few runs", []float64{1, 2, 3}, report.Inconclusive},
	}
	for _, tc := range tests {
		if got := aggregateOf(tc.vals...).Checks[0].Verdict; got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestSavedHistoryRoundTripsThroughRecheck(t *testing.T) {
	dir := t.TempDir()
	spec, _ := scenarios.Lookup("cache-on-failure")
	_, cfg, params, err := scenarios.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &history.History{Timeline: 10 * time.Second} // no outage recorded: an invalid run
	res := judge(spec, cfg, h, 1, params, 0, history.NewMeta(time.Now()))
	rr := &repeated{name: "cache-on-failure", result: res,
		histories: []savedHistory{{header: history.HistoryHeader{Scenario: spec.Name, Args: scenarios.SavedArgs(nil, params), Seed: 1}, history: h}}}
	if err := writeOut(dir, rr, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := recheck([]string{dir}, &out); err != nil {
		t.Fatalf("recheck of a fresh history: %v\n%s", err, out.String())
	}
	// A stored report that no longer matches is reported.
	res.Checks[0].Verdict = report.Reproduced
	res.Verdict = report.Reproduced
	if err := writeFile(filepath.Join(dir, "cache-on-failure.json"), func(w io.Writer) error { return report.RenderJSON(w, res) }); err != nil {
		t.Fatal(err)
	}
	if err := recheck([]string{dir}, &out); !errors.Is(err, errNotReproduced) {
		t.Errorf("a stale report went unnoticed (err %v)", err)
	}
}

// TestOutsideBesideInvalidExits1: a minority run whose survivor answered a
// linearizable read without quorum (outside) and whose lease TTLs could not
// be read after recovery (invalid) ends outside, exit 1: a check that
// could not judge never hides one that failed. Only a failed gate would
// make the run invalid.
func TestOutsideBesideInvalidExits1(t *testing.T) {
	spec, _ := scenarios.Lookup("minority")
	_, cfg, params, err := scenarios.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	at, ms := 3*time.Second, time.Millisecond
	probe := func(name string, d time.Duration, o history.Outcome, n int) history.Op {
		return history.Op{Caller: name, Kind: history.OpProbe, Target: "n1", Scheduled: at, Start: at, End: at + d, Outcome: o, Count: n}
	}
	h := &history.History{Timeline: 12 * time.Second, Ops: []history.Op{
		{Caller: "survivor/leaderless", Kind: history.OpProbe, Target: "n1", Start: 2 * time.Second, End: at, Outcome: history.OK},
		probe("survivor/lin_read", 3*ms, history.OK, 3), // outside: a read without quorum succeeded
		probe("survivor/ser_read", ms, history.OK, 3),
		probe("survivor/put", 2002*ms, history.Unknown, 0), probe("survivor/keepalive", 2003*ms, history.Fail, 0),
		{Caller: "recovery/leader", Kind: history.OpProbe, Start: 10 * time.Second, End: 10800 * ms, Outcome: history.OK},
		{Caller: "recovery/keys", Kind: history.OpProbe, Start: 10800 * ms, End: 10810 * ms, Outcome: history.OK, Count: 3},
		// no recovery/ttl op: the TTL checks cannot judge
	}, Events: history.Events{
		{At: 2 * time.Second, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"n2", "n3"}},
		{At: 10 * time.Second, Kind: history.KillMembers, Phase: history.Heal, Targets: []string{"n2", "n3"}},
	}}
	res := judge(spec, cfg, h, 1, params, 0, history.NewMeta(time.Now()))
	if len(res.With(report.Outside)) == 0 || len(res.With(report.Invalid)) == 0 {
		t.Fatalf("want an outside and an invalid check: %v", res.Checks)
	}
	if res.Verdict != report.Outside {
		t.Errorf("run verdict %s, want outside", res.Verdict)
	}
	if code := exitCode(verdictErr(res.Verdict), io.Discard); code != exitNotReproduced {
		t.Errorf("exit code %d, want %d", code, exitNotReproduced)
	}
}

// ejectionRun is a passive-ejection history as the article saw it: none
// fails every third call after the crash, eject only its first one.
func ejectionRun() *history.History {
	third := func(at time.Duration) bool { return at >= 4*time.Second && int(at/(25*time.Millisecond))%3 == 1 }
	ops := scentest.Synth([]string{"none", "eject", scenarios.RealRoundRobin, scenarios.RealPickFirst}, 40, 10*time.Second,
		func(c string, at time.Duration) bool {
			return (c == "none" && third(at)) || (c == "eject" && at == 4*time.Second+25*time.Millisecond)
		})
	return &history.History{Ops: ops, Timeline: 10 * time.Second, Events: history.Events{
		{At: time.Second, Kind: history.KillMembers, Phase: history.Inject},
		{At: 4 * time.Second, Kind: history.CrashInstance, Phase: history.Inject, Targets: []string{"j2"}},
	}}
}

// TestRecheckFlagsATamperedRunInARepeatedSet: six runs saved with --out;
// one late successful call of the ejecting caller in one run's history is
// turned into a failure. That run's eject.fail goes from 1 to 2, still
// inside its band, and no verdict or median moves — recheck still names
// the run's sample that moved.
func TestRecheckFlagsATamperedRunInARepeatedSet(t *testing.T) {
	dir := t.TempDir()
	spec, _ := scenarios.Lookup("passive-ejection")
	_, cfg, params, err := scenarios.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	rr := &repeated{name: spec.Name}
	var runs []*report.Result
	var sums []report.RunSummary
	for seed := int64(1); seed <= 6; seed++ {
		h := ejectionRun()
		res := judge(spec, cfg, h, seed, params, 0, history.NewMeta(time.Now()))
		runs, sums = append(runs, res), append(sums, report.RunSummary{Seed: seed, Verdict: res.Verdict})
		rr.histories = append(rr.histories, savedHistory{header: history.HistoryHeader{Scenario: spec.Name, Args: scenarios.SavedArgs(nil, params), Seed: seed}, history: h})
	}
	rr.result = combine(runs, sums, 6)
	if err := writeOut(dir, rr, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := recheck([]string{dir}, &out); err != nil {
		t.Fatalf("recheck of fresh histories: %v\n%s", err, out.String())
	}
	tampered := filepath.Join(dir, spec.Name+".seed3"+historySuffix)
	hdr, h, err := readHistoryFile(tampered)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(h.Ops) - 1; i >= 0; i-- {
		if h.Ops[i].Caller == "eject" && h.Ops[i].Outcome == history.OK {
			h.Ops[i].Outcome = history.Fail
			break
		}
	}
	if err := writeFile(tampered, func(w io.Writer) error { return history.WriteHistory(w, hdr, h) }); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = recheck([]string{dir}, &out)
	if !errors.Is(err, errNotReproduced) {
		t.Fatalf("a tampered run went unnoticed (err %v)\n%s", err, out.String())
	}
	if want := "samples metric:eject.fail, run 3 of 6: 1 → 2"; !strings.Contains(out.String(), want) {
		t.Errorf("recheck does not name what moved (%q):\n%s", want, out.String())
	}
}

// TestRecheckWriteBringsAStaleReportUpToDate: --write rewrites a report
// that no longer matches from its saved history, keeping its metadata and
// noting the re-judging; a plain recheck then passes.
func TestRecheckWriteBringsAStaleReportUpToDate(t *testing.T) {
	dir := t.TempDir()
	spec, _ := scenarios.Lookup("passive-ejection")
	_, cfg, params, err := scenarios.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := ejectionRun()
	res := judge(spec, cfg, h, 1, params, 0, history.NewMeta(time.Now()))
	res.Checks[0].Verdict = report.Outside // what an older judge said
	rr := &repeated{name: spec.Name, result: res,
		histories: []savedHistory{{header: history.HistoryHeader{Scenario: spec.Name, Args: scenarios.SavedArgs(nil, params), Seed: 1}, history: h}}}
	if err := writeOut(dir, rr, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := recheck([]string{"--write", dir}, &out); err != nil {
		t.Fatalf("recheck --write: %v\n%s", err, out.String())
	}
	if err := recheck([]string{dir}, &out); err != nil {
		t.Fatalf("recheck after --write: %v\n%s", err, out.String())
	}
	now, err := loadResult(filepath.Join(dir, spec.Name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if now.Meta == nil || now.Meta.Rejudged == nil || now.Meta.Start != res.Meta.Start.UTC() {
		t.Errorf("meta after --write: %+v", now.Meta)
	}
}
