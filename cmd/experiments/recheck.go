package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// recheck is `experiments recheck DIR`: it judges every saved history in
// DIR again, without running anything, and compares what the judges say
// now with the reports stored beside the histories: every stored figure
// (verdicts, measurements, bands, statistics over runs, metrics, each run's
// samples; not the judge's own timings). A report that no longer matches is reported with what moved,
// and the command exits 1, so a results directory never silently goes stale.
//
// With --write it also rewrites each stored report (and its figures) from
// what the judges say now, keeping the run's metadata, wall time and run
// list and noting the re-judging in meta.rejudged: a judge improved, and
// the measurements need no new run (as Jepsen analyses a stored history
// again).
func recheck(args []string, stdout io.Writer) error {
	write := len(args) > 0 && args[0] == "--write"
	if write {
		args = args[1:]
	}
	if len(args) != 1 {
		return scenarios.Usagef("recheck: want one argument, a directory written with --out (recheck [--write] DIR)")
	}
	groups, err := historyGroups(args[0])
	if err != nil {
		return fmt.Errorf("recheck: %w", err)
	}
	t := report.Table{Title: "Saved histories judged again", Header: []string{"run", "histories", "stored verdict", "verdict now", "differences"}}
	bad, rewritten := 0, 0
	harness := history.NewMeta(time.Now()).Harness
	judged := map[string]*report.Result{}
	for _, name := range sortedKeys(groups) {
		now, err := rejudge(groups[name])
		if err != nil {
			return fmt.Errorf("recheck %s: %w", name, err)
		}
		stored, err := loadResult(filepath.Join(args[0], name+".json"))
		if err != nil {
			return fmt.Errorf("recheck %s: %w", name, err)
		}
		diffs := differences(stored, now)
		now.WallSeconds = stored.WallSeconds
		judged[name] = now
		if len(diffs) > 0 {
			bad++
		}
		if write && (len(diffs) > 0 || staleWords(stored, now, harness)) {
			if err := rewrite(args[0], name, groups[name], stored, now); err != nil {
				return fmt.Errorf("recheck --write %s: %w", name, err)
			}
			rewritten++
		}
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(len(groups[name])), string(stored.Verdict), string(now.Verdict), orNone(diffs, maxShown)})
	}
	if err := report.RenderTable(stdout, t, false); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d of %d stored reports no longer match what their judges say\n", bad, len(groups))
	if write {
		fmt.Fprintf(stdout, "rewrote %d reports from their saved histories\n", rewritten)
		if err := refreshSummary(args[0], judged); err != nil {
			return fmt.Errorf("recheck --write: the summary: %w", err)
		}
		if err := refreshSweep(args[0], judged); err != nil {
			return fmt.Errorf("recheck --write: the sweep: %w", err)
		}
		return nil
	}
	if bad > 0 {
		return errNotReproduced
	}
	return nil
}

// maxShown is how many differences of one report the table lists.
const maxShown = 6

// orNone joins the first n differences ("none" for none).
func orNone(ds []string, n int) string {
	switch {
	case len(ds) == 0:
		return "none"
	case len(ds) > n:
		return strings.Join(ds[:n], "; ") + fmt.Sprintf("; and %d more", len(ds)-n)
	}
	return strings.Join(ds, "; ")
}

// seedPart is the ".seed<S>" of a repeated run's history name.
var seedPart = regexp.MustCompile(`\.seed-?\d+$`)

// historyGroups maps each result name in dir to its saved histories.
func historyGroups(dir string) (map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*"+historySuffix))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, scenarios.Usagef("%s holds no saved history (*%s); write one with --out", dir, historySuffix)
	}
	out := map[string][]string{}
	for _, f := range files {
		name := seedPart.ReplaceAllString(strings.TrimSuffix(filepath.Base(f), historySuffix), "")
		out[name] = append(out[name], f)
	}
	return out, nil
}

// rejudge judges a result's saved histories again, as the run did.
func rejudge(files []string) (*report.Result, error) {
	sort.Strings(files)
	var results []*report.Result
	var sums []report.RunSummary
	for _, f := range files {
		res, err := rejudgeOne(f)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
		sums = append(sums, report.RunSummary{Seed: res.Seed, Verdict: res.Verdict})
	}
	if len(results) == 1 {
		return results[0], nil
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Seed < results[j].Seed })
	return combine(results, sums, len(results)), nil
}

func rejudgeOne(path string) (*report.Result, error) {
	hdr, h, err := readHistoryFile(path)
	if err != nil {
		return nil, err
	}
	spec, cfg, params, err := savedConfig(hdr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return judge(spec, cfg, h, hdr.Seed, params, 0, savedMeta(hdr)), nil
}

// savedMeta is the metadata of a re-judging: this process's, with the real
// systems the saved run named (none in a history saved before they were).
func savedMeta(hdr history.HistoryHeader) *history.Meta {
	m := history.NewMeta(time.Now())
	if hdr.Meta != nil {
		m.World = hdr.Meta.World
	}
	return m
}

// readHistoryFile reads one saved history (<name>.history.jsonl.gz).
func readHistoryFile(path string) (history.HistoryHeader, *history.History, error) {
	fh, err := os.Open(path)
	if err != nil {
		return history.HistoryHeader{}, nil, err
	}
	defer fh.Close()
	hdr, h, err := history.ReadHistory(fh)
	if err != nil {
		return hdr, nil, fmt.Errorf("%s: %w", path, err)
	}
	return hdr, h, nil
}

// savedConfig rebuilds the spec, config and parameters a saved history was
// run with (scenarios.ParseSaved: the run's environment is not required).
func savedConfig(hdr history.HistoryHeader) (scenarios.Spec, scenarios.Config, map[string]any, error) {
	spec, err := lookup(hdr.Scenario)
	if err != nil {
		return spec, nil, nil, err
	}
	_, cfg, params, err := scenarios.ParseSaved(spec, hdr.Args)
	if err != nil {
		return spec, nil, nil, fmt.Errorf("the saved arguments of %s no longer parse: %w", hdr.Scenario, err)
	}
	return spec, cfg, params, nil
}

// differences lists every stored figure that the saved histories no
// longer give: the run's verdict; each check's verdict, measurement, band
// and statistics over runs; each metric; each run's sample of every check
// and metric. A repeated run whose one history changed is named even when
// no verdict and no median moved.
func differences(stored, now *report.Result) []string {
	var out []string
	if stored.Verdict != now.Verdict {
		out = append(out, fmt.Sprintf("verdict %s → %s", stored.Verdict, now.Verdict))
	}
	out = append(out, checkDifferences(stored.Checks, now.Checks)...)
	out = append(out, numberDifferences("metric ", stored.Metrics, now.Metrics)...)
	out = append(out, sampleDifferences(stored.Samples, now.Samples)...)
	return out
}

// checkDifferences compares the checks by name.
func checkDifferences(stored, now []report.Check) []string {
	var out []string
	old := map[string]report.Check{}
	for _, c := range stored {
		old[c.Name] = c
	}
	for _, c := range now {
		o, ok := old[c.Name]
		delete(old, c.Name)
		switch {
		case !ok:
			out = append(out, "new check "+c.Name)
		case o.Verdict != c.Verdict:
			out = append(out, fmt.Sprintf("%s: %s → %s", c.Name, o.Verdict, c.Verdict))
		case !sameNumber(float64(o.Measured), float64(c.Measured)) || o.Band != c.Band ||
			!sameNumber(float64(o.BandLo), float64(c.BandLo)) || !sameNumber(float64(o.BandHi), float64(c.BandHi)):
			out = append(out, fmt.Sprintf("%s: %s (band %s) → %s (band %s)", c.Name, o.MeasuredText, o.Band, c.MeasuredText, c.Band))
		case !sameStats(o.Stats, c.Stats):
			out = append(out, fmt.Sprintf("%s: over runs %s → %s", c.Name, statsText(o.Stats), statsText(c.Stats)))
		case !samePtr(o.AgreeLo, c.AgreeLo) || !samePtr(o.AgreeHi, c.AgreeHi) || o.AgreeBasis != c.AgreeBasis || o.Cause != c.Cause:
			out = append(out, fmt.Sprintf("%s: agreement with the article or cause changed", c.Name))
		}
	}
	for _, name := range sortedKeys(old) {
		out = append(out, "check gone: "+name)
	}
	return out
}

// samePtr compares two optional numbers.
func samePtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameNumber(*a, *b)
}

// numberDifferences compares two maps of numbers key by key.
func numberDifferences(what string, stored, now map[string]float64) []string {
	var out []string
	for _, k := range sortedKeys(now) {
		o, ok := stored[k]
		switch {
		case !ok:
			out = append(out, "new "+what+k)
		case !sameNumber(o, now[k]):
			out = append(out, fmt.Sprintf("%s%s: %s → %s", what, k, report.Num(o), report.Num(now[k])))
		}
	}
	for _, k := range sortedKeys(stored) {
		if _, ok := now[k]; !ok {
			out = append(out, what+k+" gone")
		}
	}
	return out
}

// sampleDifferences compares each run's sample of every check and metric.
func sampleDifferences(stored, now map[string]report.Numbers) []string {
	var out []string
	for _, k := range sortedKeys(now) {
		o, n := stored[k], now[k]
		if len(o) != len(n) {
			out = append(out, fmt.Sprintf("samples %s: %d runs → %d", k, len(o), len(n)))
			continue
		}
		for i := range n {
			if !sameNumber(o[i], n[i]) {
				out = append(out, fmt.Sprintf("samples %s, run %d of %d: %s → %s", k, i+1, len(n), report.Num(o[i]), report.Num(n[i])))
			}
		}
	}
	for _, k := range sortedKeys(stored) {
		if _, ok := now[k]; !ok {
			out = append(out, "samples "+k+" gone")
		}
	}
	return out
}

func sameStats(a, b *report.Stats) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	same := a.Runs == b.Runs && sameNumber(float64(a.Median), float64(b.Median)) &&
		sameNumber(float64(a.CILo), float64(b.CILo)) && sameNumber(float64(a.CIHi), float64(b.CIHi)) &&
		sameNumber(float64(a.Min), float64(b.Min)) && sameNumber(float64(a.Max), float64(b.Max))
	return same && (a.InBand == nil) == (b.InBand == nil) && (a.InBand == nil || *a.InBand == *b.InBand)
}

func statsText(s *report.Stats) string {
	if s == nil {
		return "none"
	}
	in := "—"
	if s.InBand != nil {
		in = fmt.Sprint(*s.InBand)
	}
	return fmt.Sprintf("median %s, 95 %% %s–%s, %s/%d in band", report.Num(float64(s.Median)), report.Num(float64(s.CILo)),
		report.Num(float64(s.CIHi)), in, s.Runs)
}

// sameNumber compares two figures as JSON holds them: NaN and ±Inf are all
// null there, so any two non-finite values are the same.
func sameNumber(a, b float64) bool {
	finiteA, finiteB := !math.IsNaN(a) && !math.IsInf(a, 0), !math.IsNaN(b) && !math.IsInf(b, 0)
	if !finiteA || !finiteB {
		return finiteA == finiteB
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rewrite writes now (the re-judged report of files) over the stored one:
// the stored metadata, wall time and run list stay (the run's verdicts
// follow the judge), the histories and figures are written again.
func rewrite(dir, name string, files []string, stored, now *report.Result) error {
	now.Meta, now.WallSeconds = stored.Meta, stored.WallSeconds
	if now.Meta == nil {
		now.Meta = history.NewMeta(time.Now())
	}
	now.Meta.Rejudged = history.NewRejudge(time.Now())
	if stored.Runs != nil {
		now.Runs = withVerdicts(stored.Runs, now.Runs)
	}
	rr := &repeated{name: name, result: now}
	sort.Strings(files)
	for _, f := range files {
		hdr, h, err := readHistoryFile(f)
		if err != nil {
			return err
		}
		rr.histories = append(rr.histories, savedHistory{header: hdr, history: h})
	}
	sort.Slice(rr.histories, func(i, j int) bool { return rr.histories[i].header.Seed < rr.histories[j].header.Seed })
	if filepath.Base(dir) == "points" {
		return writePoint(dir, rr, nil) // a sweep's point: its report and history, without figures
	}
	return writeOut(dir, rr, nil)
}

// withVerdicts returns the stored run list with each valid run's verdict
// as the judges give it now.
func withVerdicts(stored, now []report.RunSummary) []report.RunSummary {
	v := map[int64]report.Verdict{}
	for _, r := range now {
		v[r.Seed] = r.Verdict
	}
	out := append([]report.RunSummary(nil), stored...)
	for i, r := range out {
		if nv, ok := v[r.Seed]; ok && !r.Retry {
			out[i].Verdict = nv
		}
	}
	return out
}
