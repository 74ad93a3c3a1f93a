package storm

import (
	"cmp"
	"context"
	"errors"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"sdchaos/fakeservice"
	"sdchaos/history"
)

// Record is one registry call, with times as offsets from the log's zero.
type Record struct {
	Call    fakeservice.Call `json:"call"`
	Start   time.Duration    `json:"start_ns"`
	End     time.Duration    `json:"end_ns"`
	Outcome history.Outcome  `json:"outcome"`
	// Kind names a failed call's error (ErrKind); "" when it succeeded.
	Kind string `json:"kind,omitempty"`
}

// Log collects registry calls; safe for concurrent use. Only calls that
// start at or after the zero are kept once Arm has been called.
type Log struct {
	mu    sync.Mutex
	t0    time.Time
	armed bool
	recs  []Record
}

// Arm sets the zero (the moment the link returns) and starts keeping calls.
func (l *Log) Arm(t0 time.Time) {
	l.mu.Lock()
	l.t0, l.armed, l.recs = t0, true, nil
	l.mu.Unlock()
}

// Zero returns the zero set by the last Arm (the zero time before any).
func (l *Log) Zero() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t0
}

// Disarm stops keeping calls.
func (l *Log) Disarm() {
	l.mu.Lock()
	l.armed = false
	l.mu.Unlock()
}

// Observe is a fakeservice.Observer.
func (l *Log) Observe(call fakeservice.Call, start, end time.Time, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.armed || start.Before(l.t0) {
		return
	}
	o := history.OK
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		o = history.Unknown
	case err != nil:
		o = history.Fail
	}
	l.recs = append(l.recs, Record{Call: call, Start: start.Sub(l.t0), End: end.Sub(l.t0), Outcome: o, Kind: ErrKind(err)})
}

// ErrKind names a registry call's error in a few words ("" for nil): a
// timeout, the network error under gRPC's Unavailable (reset, refused,
// broken pipe, closed), or the gRPC code.
func ErrKind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	msg := err.Error()
	for _, k := range []string{"connection reset", "connection refused", "broken pipe", "EOF", "going away", "stream reset"} {
		if strings.Contains(msg, k) {
			return k
		}
	}
	if st, ok := status.FromError(err); ok {
		if st.Code() == codes.Unavailable { // the harness's own wrapping of a network error: say which
			return "Unavailable: " + shortMsg(st.Message())
		}
		return st.Code().String()
	}
	return "other"
}

var addrLike = regexp.MustCompile(`[0-9][0-9.:\->]*[0-9]`)

// shortMsg is an error message without its addresses and ports, cut to 48
// characters, so that equal errors on different connections tally as one.
func shortMsg(m string) string {
	m = addrLike.ReplaceAllString(m, "#")
	if len(m) > 48 {
		m = m[:48] + "…"
	}
	return m
}

// Records returns the kept calls sorted by start.
func (l *Log) Records() []Record {
	l.mu.Lock()
	out := append([]Record(nil), l.recs...)
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// Buckets returns, for n buckets of width from zero, how many calls started
// in each and the most calls in flight at once during each.
func Buckets(recs []Record, width time.Duration, n int) (started, inflight []int) {
	started, inflight = make([]int, n), make([]int, n)
	type ev struct {
		at    time.Duration
		delta int
	}
	evs := make([]ev, 0, 2*len(recs))
	for _, r := range recs {
		if b := int(r.Start / width); b >= 0 && b < n {
			started[b]++
		}
		evs = append(evs, ev{r.Start, +1}, ev{r.End, -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].at != evs[j].at {
			return evs[i].at < evs[j].at
		}
		return evs[i].delta < evs[j].delta // an end before a start at the same instant
	})
	cur, b := 0, 0
	for _, e := range evs {
		for b < n && e.at >= time.Duration(b+1)*width {
			b++
			if b < n {
				inflight[b] = cur // carried over from the previous bucket
			}
		}
		cur += e.delta
		if b < n && cur > inflight[b] {
			inflight[b] = cur
		}
	}
	for b++; b < n; b++ {
		inflight[b] = cur
	}
	return started, inflight
}

// Summary condenses the calls of one storm.
type Summary struct {
	Calls, Errors, Timeouts int
	P50ms, P99ms            float64
	// ErrKinds counts the failed calls by ErrKind.
	ErrKinds map[string]int `json:",omitempty"`
}

// Summarize returns the call count, errors (failed calls, timeouts included),
// timeouts, and p50/p99 latency of all calls.
func Summarize(recs []Record) Summary {
	s := Summary{Calls: len(recs)}
	lat := make([]float64, 0, len(recs))
	for _, r := range recs {
		lat = append(lat, float64(r.End-r.Start)/float64(time.Millisecond))
		if r.Outcome != history.OK {
			s.Errors++
			if s.ErrKinds == nil {
				s.ErrKinds = map[string]int{}
			}
			s.ErrKinds[cmp.Or(r.Kind, "unknown")]++
		}
		if r.Outcome == history.Unknown {
			s.Timeouts++
		}
	}
	s.P50ms, s.P99ms = nearestRank(lat, 0.50), nearestRank(lat, 0.99)
	return s
}

// nearestRank returns the p-quantile (0 < p ≤ 1) of xs by the nearest-rank
// method (gonum's empirical quantile: the smallest x with CDF(x) ≥ p), NaN
// for none. xs is sorted in place.
func nearestRank(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	return stat.Quantile(p, stat.Empirical, xs, nil)
}
