package report

import (
	"fmt"
	"math"
	"sort"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of every interval over repeated runs.
const Confidence = 0.95

// MinRunsForInterval is the fewest runs whose order statistics give a 95 %
// interval of the median: at 5 runs the widest interval, [min, max], covers
// only 93.75 %.
const MinRunsForInterval = 6

// RunSummary is one run of a repeated scenario: its seed, its verdict and,
// for an invalid run, why (invalid runs are retried and never counted).
type RunSummary struct {
	Seed    int64    `json:"seed"`
	Verdict Verdict  `json:"verdict"`
	WallS   float64  `json:"wall_s"`
	Invalid []string `json:"invalid,omitempty"`
	Retry   bool     `json:"retry,omitempty"`
}

// Why lists why a run is invalid: its failed gates and invalid checks.
func (r *Result) Why() []string {
	var out []string
	for _, g := range r.Gates {
		if !g.OK {
			out = append(out, g.Name+": "+g.Measured)
		}
	}
	for _, c := range r.With(Invalid) {
		out = append(out, c.Name+": "+c.Cause)
	}
	return out
}

// AddSamples records the result's check measurements and metrics as
// samples of one run (keys "check:<name>" and "metric:<name>"), the input
// of Aggregate and of a comparison with a baseline.
func (r *Result) AddSamples() {
	if r.Samples == nil {
		r.Samples = map[string]Numbers{}
	}
	for _, c := range r.Checks {
		r.Samples["check:"+c.Name] = append(r.Samples["check:"+c.Name], float64(c.Measured))
	}
	for k, v := range r.Metrics {
		r.Samples["metric:"+k] = append(r.Samples["metric:"+k], v)
	}
}

// Aggregate combines the valid runs of one scenario (same parameters,
// seeds seed … seed+N−1) into one result: per metric the median with a
// distribution-free 95 % interval (order statistics, benchmath's
// AssumeNothing), min and max; per check how many runs were in band and a
// verdict over the runs: reproduced (or differs) when the interval lies
// inside the band, outside when it lies entirely outside, inconclusive
// otherwise; a yes/no check uses the Wilson interval of its pass rate
// against one half. No means, no t-tests, no min-of-N: these
// distributions are often bimodal. The tables and conclusion of the first
// run are kept as an example run.
func Aggregate(runs []*Result, summaries []RunSummary) *Result {
	first := runs[0]
	out := NewResult(first.Scenario)
	out.Title = fmt.Sprintf("%s — over %d runs", first.Title, len(runs))
	out.Seed, out.Params, out.Runs = first.Seed, first.Params, summaries
	out.TimelineSeconds = first.TimelineSeconds
	for _, r := range runs {
		out.WallSeconds += r.WallSeconds
		for k, v := range r.Samples {
			out.Samples[k] = append(out.Samples[k], v...)
		}
	}
	out.AddTable(metricsTable(out, len(runs)))
	for _, c := range first.Checks {
		out.AddCheck(aggregateCheck(c, runs))
	}
	out.Conclude(fmt.Sprintf("%d valid runs (seeds from %d), %d invalid runs retried; below, the tables and conclusion of the first run.",
		len(runs), first.Seed, countInvalid(summaries)))
	out.Tables = append(out.Tables, first.Tables...)
	out.Conclusion = append(out.Conclusion, first.Conclusion...)
	out.Events = first.Events
	out.Finish()
	return out
}

func countInvalid(ss []RunSummary) int {
	n := 0
	for _, s := range ss {
		if len(s.Invalid) > 0 {
			n++
		}
	}
	return n
}

// MedianCI returns the median of xs and its distribution-free 95 %
// interval (±Inf below MinRunsForInterval values).
func MedianCI(xs []float64) (median, lo, hi float64) {
	clean := finite(xs)
	if len(clean) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(clean, &benchmath.DefaultThresholds), Confidence)
	return s.Center, s.Lo, s.Hi
}

func finite(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// metricsTable sets each metric to its median and tabulates the intervals.
func metricsTable(out *Result, n int) Table {
	t := Table{Title: fmt.Sprintf("Metrics over %d runs (median, 95 %% interval of the median by order statistics, min, max)", n),
		Header: []string{"metric", "median", "95 % interval", "min", "max", "runs"}}
	var keys []string
	for k := range out.Samples {
		if len(k) > 7 && k[:7] == "metric:" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out.MetricStats = map[string]Stats{}
	missing := false
	for _, k := range keys {
		st := statsOf(out.Samples[k])
		out.Metrics[k[7:]], out.MetricStats[k[7:]] = float64(st.Median), st
		row := []string{k[7:], Num(float64(st.Median)), interval(float64(st.CILo), float64(st.CIHi)),
			Num(float64(st.Min)), Num(float64(st.Max)), fmt.Sprint(st.Runs)}
		if st.Runs == 0 { // no run measured it (a figure the registry does not export)
			row, missing = []string{k[7:], "—", "—", "—", "—", "0"}, true
		}
		t.Rows = append(t.Rows, row)
	}
	if n < MinRunsForInterval {
		t.Notes = append(t.Notes, fmt.Sprintf("a 95 %% interval of the median needs at least %d runs; with %d it is unbounded", MinRunsForInterval, n))
	}
	if missing {
		t.Notes = append(t.Notes, "— = measured in no run")
	}
	return t
}

// statsOf returns the statistics of a sample over runs (NaN and ±Inf left out).
func statsOf(xs []float64) Stats {
	clean := finite(xs)
	med, lo, hi := MedianCI(clean)
	mn, mx := MinMax(clean)
	return Stats{Runs: len(clean), Median: Number(med), CILo: Number(lo), CIHi: Number(hi), Min: Number(mn), Max: Number(mx)}
}

func interval(lo, hi float64) string {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) {
		return "unbounded"
	}
	return Num(lo) + " – " + Num(hi)
}

// aggregateCheck judges one check over the runs.
func aggregateCheck(c Check, runs []*Result) Check {
	var xs, los, his []float64
	in := 0
	for _, r := range runs {
		for _, rc := range r.Checks {
			if rc.Name == c.Name {
				xs, los, his = append(xs, float64(rc.Measured)), append(los, float64(rc.BandLo)), append(his, float64(rc.BandHi))
				if rc.Pass {
					in++
				}
			}
		}
	}
	out := c
	out.BandLo, out.BandHi = Number(medianOrSame(los)), Number(medianOrSame(his))
	if c.YesNo {
		return yesNoOverRuns(out, xs, in)
	}
	st := statsOf(xs)
	st.InBand = &in
	out.Stats = &st
	med, lo, hi := float64(st.Median), float64(st.CILo), float64(st.CIHi)
	out.Measured, out.Pass = Number(med), in == len(xs)
	unit := ""
	if c.Unit != "" {
		unit = " " + c.Unit
	}
	out.MeasuredText = fmt.Sprintf("median %s%s, 95 %% %s; %d/%d runs in band", Num(med), unit, interval(lo, hi), in, len(xs))
	if len(finite(xs)) == 0 {
		out.MeasuredText = fmt.Sprintf("%s (measured in none of %d runs)", NotMeasured, len(xs))
	}
	blo, bhi := float64(out.BandLo), float64(out.BandHi)
	switch {
	case len(finite(xs)) == 0:
		out.Verdict, out.Cause = Invalid, "no run measured it"
	case lo >= blo && hi <= bhi:
		out.Verdict, out.Cause = inBandVerdict(out, med)
	case hi < blo || lo > bhi:
		out.Verdict, out.Cause = Outside, ""
	default:
		out.Verdict, out.Cause = Inconclusive, inconclusiveWhy(len(xs))
	}
	return out
}

// medianOrSame is the median of band edges across runs (they differ only
// where a band follows a measured quantity, such as a read delay).
func medianOrSame(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return Median(xs)
}

func inconclusiveWhy(n int) string {
	if n < MinRunsForInterval {
		return fmt.Sprintf("the 95 %% interval of the median needs at least %d runs (had %d)", MinRunsForInterval, n)
	}
	return "the 95 % interval of the median overlaps the band's edge"
}

// yesNoOverRuns judges a yes/no check by the Wilson interval of the share
// of runs in band: inside it above one half (then reproduced when most runs
// gave the article's answer, else differs), outside below, else
// inconclusive.
func yesNoOverRuns(c Check, xs []float64, in int) Check {
	n := len(xs)
	lo, hi := Wilson(in, n)
	verdict, cause := yesNoAgreement(c, xs)
	if c.BandLo == c.BandHi {
		c = shareAgreement(c)
	}
	c.Measured, c.Pass = Number(float64(in)/float64(max(n, 1))), in == n
	c.Stats = &Stats{Runs: n, Median: c.Measured, CILo: Number(lo), CIHi: Number(hi), Min: Number(B2F(in == n)), Max: Number(B2F(in > 0)), InBand: &in}
	c.MeasuredText = fmt.Sprintf("%d/%d runs as expected (95 %% Wilson %.2f–%.2f)", in, n, lo, hi)
	c.Band, c.BandLo, c.BandHi, c.Unit = "in most runs: "+c.Band, 0.5, 1, "share of runs"
	switch {
	case n == 0:
		c.Verdict, c.Cause = Invalid, "no run measured it"
	case lo > 0.5:
		c.Verdict, c.Cause = verdict, cause
	case hi < 0.5:
		c.Verdict, c.Cause = Outside, ""
	default:
		c.Verdict, c.Cause = Inconclusive, "the Wilson interval of the share of runs as expected contains one half"
	}
	return c
}

// yesNoAgreement is a yes/no check's verdict over runs once most are in
// band: reproduced when more than half the runs gave the article's answer
// (or it gives none), else differs with the cause for the runs' usual answer.
func yesNoAgreement(c Check, xs []float64) (Verdict, string) {
	if c.ArticleLo == nil {
		return Reproduced, ""
	}
	agree := 0
	for _, x := range xs {
		if x == *c.ArticleLo {
			agree++
		}
	}
	if 2*agree > len(xs) {
		return Reproduced, ""
	}
	return inBandVerdict(c, Median(xs))
}

// Wilson returns the 95 % Wilson score interval of k successes in n trials.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	z := distuv.UnitNormal.Quantile(1 - (1-Confidence)/2)
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// shareAgreement restates a yes/no check's article answer and agreement
// as shares of runs as expected: the article's answer is the expected one
// (share 1, agreeing above one half) or the other (share 0, agreeing
// below one half).
func shareAgreement(c Check) Check {
	if c.ArticleLo == nil || c.AgreeLo == nil {
		return c
	}
	art, lo, hi := 0.0, 0.0, 0.5
	if *c.ArticleLo == float64(c.BandLo) {
		art, lo, hi = 1, 0.5, 1
	}
	c.ArticleLo, c.ArticleHi, c.AgreeLo, c.AgreeHi = &art, &art, &lo, &hi
	c.AgreeBasis = "over runs, the share of runs giving the article's answer must exceed one half"
	return c
}
