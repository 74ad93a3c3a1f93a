package report

import (
	"encoding/json"
	"math"
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

// Check is one headline comparison: the article's figure, ours, the band
// that counts as reproduced, and whether ours is inside it.
type Check struct {
	Name     string `json:"name"`
	Article  string `json:"article"`
	Measured string `json:"measured"`
	Band     string `json:"band"`
	Pass     bool   `json:"pass"`
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
	Scenario   string            `json:"scenario"`
	Title      string            `json:"title"`
	Seed       int64             `json:"seed"`
	Params     map[string]string `json:"params"`
	Tables     []Table           `json:"tables"`
	Series     map[string]Series `json:"series,omitempty"`
	Metrics    Metrics           `json:"metrics"`
	Checks     []Check           `json:"checks"`
	Reproduced bool              `json:"reproduced"`
	Conclusion []string          `json:"conclusion"`
	Marks      []Mark            `json:"marks,omitempty"`
	// TimelineSeconds is the length of the experiment's own timeline (the
	// part the article describes); WallSeconds is the measured wall time of
	// the whole run including cluster start and teardown.
	TimelineSeconds float64 `json:"timeline_s"`
	WallSeconds     float64 `json:"wall_s"`
}

// NewResult returns an empty result for scenario name with maps allocated.
func NewResult(name string) *Result {
	return &Result{Scenario: name, Params: map[string]string{}, Metrics: Metrics{}}
}

// AddTable appends a table.
func (r *Result) AddTable(t Table) { r.Tables = append(r.Tables, t) }

// AddCheck appends a check.
func (r *Result) AddCheck(c ...Check) { r.Checks = append(r.Checks, c...) }

// Conclude appends one sentence of conclusion.
func (r *Result) Conclude(s string) { r.Conclusion = append(r.Conclusion, s) }

// Finish sets Reproduced: true when there is at least one check and every
// check passed.
func (r *Result) Finish() {
	r.Reproduced = len(r.Checks) > 0
	for _, c := range r.Checks {
		if !c.Pass {
			r.Reproduced = false
		}
	}
}

// Failed returns the checks that did not pass.
func (r *Result) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.Pass {
			out = append(out, c)
		}
	}
	return out
}
