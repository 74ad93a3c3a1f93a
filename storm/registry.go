package storm

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"sdchaos/cluster"
)

// RegistryLoad is what the registry's members received and answered in a
// window, summed over the members, in buckets of one width from the
// window's start; it also says whether the registry fell over in it.
type RegistryLoad struct {
	// Members is how many members had a sample at or before the window's
	// start (the others' counts are missing).
	Members int
	// Received, OK and Errors are per bucket: gRPC calls the members started
	// handling, and answered with code OK (or a KeepAliveOnce stream closed
	// by its client after the answer) or another code.
	Received, OK, Errors []float64
	// Totals over the window, and the error codes of the answers.
	TotalReceived, TotalOK, TotalErrors float64
	ErrCodes                            map[string]float64
	// Served is how many reads and raft requests the members completed in
	// the window (etcd_server_request_duration_seconds), and P50ms, P99ms
	// and MeanMs their duration; P99ms is the histogram's last bound when
	// more than 1 % took longer (TooSlow).
	Served, P50ms, P99ms, MeanMs float64
	TooSlow                      bool
	// LeaderChanges is the most leader changes one member saw in the window.
	LeaderChanges float64
	// Leaderless names the members that reported no leader in the window.
	Leaderless []string
	// Lost names the members whose process exited or that stopped answering.
	Lost []string
	// MaxGap is the longest time between two samples of one member.
	MaxGap time.Duration
	// Covered is how far past the window's start every counted member's
	// samples reach (the least over the members): after it a member's
	// counters are flat, whatever it did.
	Covered time.Duration
}

// Peak returns the most calls received in one bucket.
func (l RegistryLoad) Peak() float64 {
	p := 0.0
	for _, v := range l.Received {
		p = max(p, v)
	}
	return p
}

// FellOver reports whether the registry lost its leader, a member, or saw
// a leader change in the window.
func (l RegistryLoad) FellOver() bool {
	return l.LeaderChanges > 0 || len(l.Leaderless) > 0 || len(l.Lost) > 0
}

// Falls returns how many ways the registry fell over (leader changes,
// members without a leader, members lost), 0 when it stayed up.
func (l RegistryLoad) Falls() float64 {
	return l.LeaderChanges + float64(len(l.Leaderless)+len(l.Lost))
}

// HowFell describes how the registry fell over ("" when it did not).
func (l RegistryLoad) HowFell() string {
	var parts []string
	if l.LeaderChanges > 0 {
		parts = append(parts, fmt.Sprintf("%g leader change(s)", l.LeaderChanges))
	}
	if len(l.Leaderless) > 0 {
		parts = append(parts, "no leader on "+strings.Join(l.Leaderless, ", "))
	}
	for _, m := range l.Lost {
		parts = append(parts, m)
	}
	return strings.Join(parts, "; ")
}

// MeasureRegistry measures members' samples over n buckets of width from
// from (Unix nanoseconds, the clock the members' samples use). Counters
// are interpolated linearly between samples, so a bucket holds what the
// members did in it even though the samples are not aligned with it.
func MeasureRegistry(members []cluster.MemberMetrics, from int64, width time.Duration, n int) RegistryLoad {
	l := RegistryLoad{Received: make([]float64, n), OK: make([]float64, n), Errors: make([]float64, n),
		ErrCodes: map[string]float64{}}
	to := from + int64(n)*int64(width)
	var dur cluster.Histogram
	covered := int64(math.MaxInt64)
	for _, m := range members {
		if m.Lost != "" {
			l.Lost = append(l.Lost, m.Name+": "+m.Lost)
		}
		ss := sorted(m.Samples)
		if len(ss) == 0 || ss[0].T > from {
			continue
		}
		l.Members++
		covered = min(covered, ss[len(ss)-1].T-from)
		l.addCounts(ss, from, width)
		l.addHealth(m.Name, ss, from, to)
		first, last := at(ss, from), at(ss, to)
		addDelta(&dur, first.Duration, last.Duration)
		for code, v := range last.ErrCodes {
			if d := v - first.ErrCodes[code]; d > 0 {
				l.ErrCodes[code] += d
			}
		}
	}
	for i := range l.Received {
		l.TotalReceived += l.Received[i]
		l.TotalOK += l.OK[i]
		l.TotalErrors += l.Errors[i]
	}
	l.setDurations(dur)
	if l.Members > 0 {
		l.Covered = time.Duration(covered)
	}
	return l
}

func sorted(ss []cluster.MetricSample) []cluster.MetricSample {
	out := append([]cluster.MetricSample(nil), ss...)
	sort.Slice(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// at returns the last sample at or before t (the first one if none is).
func at(ss []cluster.MetricSample, t int64) cluster.MetricSample {
	i := sort.Search(len(ss), func(i int) bool { return ss[i].T > t })
	return ss[max(i-1, 0)]
}

// value interpolates a counter of the samples linearly at time t; outside
// the samples it is flat.
func value(ss []cluster.MetricSample, t int64, f func(cluster.MetricSample) float64) float64 {
	i := sort.Search(len(ss), func(i int) bool { return ss[i].T >= t })
	switch {
	case i == 0:
		return f(ss[0])
	case i == len(ss):
		return f(ss[len(ss)-1])
	}
	a, b := ss[i-1], ss[i]
	frac := float64(t-a.T) / float64(b.T-a.T)
	return f(a) + frac*(f(b)-f(a))
}

func (l *RegistryLoad) addCounts(ss []cluster.MetricSample, from int64, width time.Duration) {
	fields := []struct {
		out []float64
		f   func(cluster.MetricSample) float64
	}{
		{l.Received, func(s cluster.MetricSample) float64 { return s.Started }},
		{l.OK, func(s cluster.MetricSample) float64 { return s.HandledOK + s.KeepAliveClosed }},
		{l.Errors, func(s cluster.MetricSample) float64 { return s.HandledErr }},
	}
	for _, fd := range fields {
		prev := value(ss, from, fd.f)
		for b := range fd.out {
			v := value(ss, from+int64(b+1)*int64(width), fd.f)
			fd.out[b] += v - prev
			prev = v
		}
	}
}

// addHealth notes leader changes, a missing leader and sampling gaps in [from, to].
func (l *RegistryLoad) addHealth(name string, ss []cluster.MetricSample, from, to int64) {
	first := at(ss, from)
	leaderless := false
	prevT := first.T
	for _, s := range ss {
		if s.T < from || s.T > to {
			continue
		}
		l.LeaderChanges = max(l.LeaderChanges, s.LeaderChanges-first.LeaderChanges)
		leaderless = leaderless || s.HasLeader == 0
		l.MaxGap = max(l.MaxGap, time.Duration(s.T-prevT))
		prevT = s.T
	}
	if leaderless {
		l.Leaderless = append(l.Leaderless, name)
	}
}

// addDelta adds b − a to sum (a histogram with no observation yet has no
// buckets and counts as zero).
func addDelta(sum *cluster.Histogram, a, b cluster.Histogram) {
	if len(b.Counts) == 0 {
		return
	}
	if len(sum.Counts) == 0 {
		sum.Bounds, sum.Counts = b.Bounds, make([]float64, len(b.Counts))
	}
	if len(sum.Counts) != len(b.Counts) {
		return // other bounds: not comparable
	}
	sum.Count += b.Count - a.Count
	sum.Sum += b.Sum - a.Sum
	for i, c := range b.Counts {
		if len(a.Counts) == len(b.Counts) {
			c -= a.Counts[i]
		}
		sum.Counts[i] += c
	}
}

func (l *RegistryLoad) setDurations(h cluster.Histogram) {
	l.Served = h.Count
	if h.Count <= 0 {
		l.P50ms, l.P99ms, l.MeanMs = math.NaN(), math.NaN(), math.NaN()
		return
	}
	l.MeanMs = 1000 * h.Sum / h.Count
	l.P50ms, _ = quantile(0.5, h)
	var beyond bool
	l.P99ms, beyond = quantile(0.99, h)
	l.TooSlow = beyond
}

// quantile estimates the q-quantile of a cumulative histogram in ms, as
// Prometheus' histogram_quantile does (linear within a bucket); beyond is
// true when it falls past the last bound (the last bound is returned).
func quantile(q float64, h cluster.Histogram) (ms float64, beyond bool) {
	rank := q * h.Count
	lower, below := 0.0, 0.0
	for i, c := range h.Counts {
		if c >= rank && c > below {
			return 1000 * (lower + (h.Bounds[i]-lower)*(rank-below)/(c-below)), false
		}
		lower, below = h.Bounds[i], c
	}
	return 1000 * lower, true
}
