package report

import (
	"encoding/json"
	"math"
	"sdchaos/history"
	"sort"
)

// Table is a rendered-agnostic table: a title, a header row, data rows and
// optional notes printed under it (legends, footnotes).
type Table struct {
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	Notes  []string   `json:"notes,omitempty"`
}

// Series holds one caller's per-second counts. Fail includes Unknown
// (timed-out) calls; Unknown is also given on its own.
type Series struct {
	OK      []int `json:"ok"`
	Fail    []int `json:"fail"`
	Unknown []int `json:"unknown,omitempty"`
}

// Metrics is a flat name → number map. Non-finite values are encoded as
// JSON null.
type Metrics map[string]float64

// MarshalJSON encodes the metrics with sorted keys and NaN/Inf as null.
func (m Metrics) MarshalJSON() ([]byte, error) {
	out := make(map[string]*float64, len(m))
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			out[k] = nil
			continue
		}
		v := v
		out[k] = &v
	}
	return json.Marshal(out)
}

// UnmarshalJSON decodes the metrics; null becomes NaN.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var in map[string]Number
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*m = make(Metrics, len(in))
	for k, v := range in {
		(*m)[k] = float64(v)
	}
	return nil
}

// Names returns the metric names in sorted order.
func (m Metrics) Names() []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Result is everything a scenario run produced; it is the JSON contract read
// by CI and other tools (keep the field names stable).
type Result struct {
	Scenario string            `json:"scenario"`
	Title    string            `json:"title"`
	Seed     int64             `json:"seed"`
	Params   map[string]any    `json:"params"`
	Tables   []Table           `json:"tables"`
	Series   map[string]Series `json:"series"`
	Metrics  Metrics           `json:"metrics"`
	Checks   []Check           `json:"checks"`
	// Verdict is the run's: invalid if a gate failed (the world was not as
	// the plan assumed) or there is no check; else the worst of its checks,
	// where outside beats invalid beats inconclusive beats differs beats
	// reproduced (Jepsen's merge-valid: a definite failure is never hidden
	// by a check that could not judge).
	Verdict Verdict `json:"verdict"`
	// Reproduced is true when the verdict is reproduced or differs (every
	// measurement inside its band).
	Reproduced bool     `json:"reproduced"`
	Conclusion []string `json:"conclusion"`
	// Events are the run's typed fault and probe events (JSON "marks").
	Events history.Events `json:"marks"`
	// Gates are the run's preconditions; a failed one makes it invalid.
	Gates []Gate `json:"gates"`
	// TimelineSeconds is the length of the experiment's own timeline (the
	// part the article describes); WallSeconds is the measured wall time of
	// the whole run including cluster start and teardown.
	TimelineSeconds float64 `json:"timeline_s"`
	WallSeconds     float64 `json:"wall_s"`
	// Runs lists the runs of a repeated scenario (--runs N), valid and
	// invalid; Samples holds each check's measurement ("check:<name>") and
	// each metric ("metric:<name>") per valid run, the input of compare.
	Runs    []RunSummary       `json:"runs,omitempty"`
	Samples map[string]Numbers `json:"samples,omitempty"`
	// Timings are figures of the judging itself (how long a checker ran,
	// ms): they change each time a history is judged, so recheck does not
	// compare them and they are not samples.
	Timings map[string]float64 `json:"judge_timings,omitempty"`
	// MetricStats, over repeated runs, are each metric's statistics across
	// the valid runs (Metrics then holds their medians).
	MetricStats map[string]Stats `json:"metric_stats,omitempty"`
	// Meta says what produced the result.
	Meta *history.Meta `json:"meta,omitempty"`
	// Files are what the run produced beside the report (a visualisation,
	// a plot): name → content. With --out each is written as
	// <scenario>.<name>; the JSON lists their names only.
	Files map[string][]byte `json:"-"`
	// FileNames lists the names of Files (JSON "files").
	FileNames []string `json:"files,omitempty"`
	// OutName is the name the report and its files are written under with
	// --out (a variant's or a sweep point's; the scenario's when empty).
	OutName string `json:"-"`
}

// Attach adds a file produced beside the report (name like "history.html").
func (r *Result) Attach(name string, data []byte) {
	if r.Files == nil {
		r.Files = map[string][]byte{}
	}
	if _, dup := r.Files[name]; !dup {
		r.FileNames = append(r.FileNames, name)
	}
	r.Files[name] = data
}

// NewResult returns an empty result for scenario name with maps allocated.
func NewResult(name string) *Result {
	return &Result{Scenario: name, Params: map[string]any{}, Metrics: Metrics{}, Series: map[string]Series{},
		Events: history.Events{}, Samples: map[string]Numbers{}}
}

// Time records a timing of the judging itself (see Timings).
func (r *Result) Time(name string, ms float64) {
	if r.Timings == nil {
		r.Timings = map[string]float64{}
	}
	r.Timings[name] = ms
}

// AddTable appends a table.
func (r *Result) AddTable(t Table) { r.Tables = append(r.Tables, t) }

// AddCheck appends checks.
func (r *Result) AddCheck(c ...Check) { r.Checks = append(r.Checks, c...) }

// Conclude appends one sentence of conclusion.
func (r *Result) Conclude(s string) { r.Conclusion = append(r.Conclusion, s) }

// Finish sets Verdict and Reproduced from the checks and the gates (a
// failed gate makes the run invalid).
func (r *Result) Finish() {
	r.Verdict = RunVerdict(r.Checks)
	if !GatesOK(r.Gates) {
		r.Verdict = Invalid
	}
	r.Reproduced = r.Verdict == Reproduced || r.Verdict == Differs
	if r.Series == nil {
		r.Series = map[string]Series{}
	}
	if r.Events == nil {
		r.Events = history.Events{}
	}
	if r.Gates == nil {
		r.Gates = []Gate{}
	}
}

// RunVerdict combines check verdicts: outside beats invalid beats
// inconclusive beats differs beats reproduced, so a check that could not
// judge never hides one that failed; no check at all is invalid. (A failed
// gate makes the whole run invalid: Finish.)
func RunVerdict(cs []Check) Verdict {
	if len(cs) == 0 {
		return Invalid
	}
	rank := map[Verdict]int{Reproduced: 0, Differs: 1, Inconclusive: 2, Invalid: 3, Outside: 4}
	v := Reproduced
	for _, c := range cs {
		if rank[c.Verdict] > rank[v] {
			v = c.Verdict
		}
	}
	return v
}

// With returns the checks whose verdict is v.
func (r *Result) With(v Verdict) []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Verdict == v {
			out = append(out, c)
		}
	}
	return out
}

// Failed returns the checks outside their band.
func (r *Result) Failed() []Check { return r.With(Outside) }
