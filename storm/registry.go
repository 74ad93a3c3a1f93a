package storm

import (
	"fmt"
	"math"
	"slices"
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
	// handling; those answered with code OK or ended by their clients (a
	// stream its client cancelled, such as a KeepAliveOnce closed after its
	// answer: see cluster.Classify); and those the registry ended with an
	// error.
	Received, OK, Errors []float64
	// Totals over the window, and the error codes of the errors.
	TotalReceived, TotalOK, TotalErrors float64
	ErrCodes                            map[string]float64
	// ClosedByClients is how many of TotalOK were streams their clients
	// closed; ClosedCodedAsErrors how many of those the member ended with an
	// error code (cluster.EndNoLeaderOrClosed: Unavailable, etcd's "no
	// leader", before 3.7) while it had a leader all along.
	ClosedByClients, ClosedCodedAsErrors float64
	// Untyped is how many streams ended no leader or closed by their
	// clients on a member whose leader is not known (it exported no
	// etcd_server_has_leader or no leader changes): neither ok nor an error.
	Untyped float64
	// Versions are the members' etcd versions, distinct and sorted.
	Versions []string
	// Missing names, per judged family, the members that exported it in
	// none of their samples of the window: the figures made of it are
	// missing, not zero.
	Missing map[cluster.Family][]string
	// Served is how many reads and raft requests the members completed in
	// the window (etcd_server_request_duration_seconds), and P50ms, P99ms
	// and MeanMs their duration; P99ms is the histogram's last bound when
	// more than 1 % took longer (TooSlow). All four are NaN when a member
	// does not export the histogram, the durations NaN when nothing was
	// served (DurationsMissing says why).
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
		ErrCodes: map[string]float64{}, Missing: map[cluster.Family][]string{}}
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
		l.noteExports(m.Name, window(ss, from, to))
		leader := l.addHealth(m.Name, ss, from, to)
		l.addCounts(ss, from, width, leader)
		l.addStreams(ss, from, to, leader)
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

// window returns the samples that bear on [from, to]: the last one at or
// before from, and those after it up to to.
func window(ss []cluster.MetricSample, from, to int64) []cluster.MetricSample {
	i := max(sort.Search(len(ss), func(i int) bool { return ss[i].T > from })-1, 0)
	j := sort.Search(len(ss), func(j int) bool { return ss[j].T > to })
	return ss[i:max(j, i+1)]
}

// noteExports notes the member's version and the judged families it
// exported in none of the samples ws.
func (l *RegistryLoad) noteExports(name string, ws []cluster.MetricSample) {
	for _, f := range cluster.JudgedFamilies {
		lacks := true
		for _, s := range ws {
			lacks = lacks && s.Lacks(f)
		}
		if lacks {
			l.Missing[f] = append(l.Missing[f], name)
		}
	}
	for _, s := range ws {
		if s.Version != "" && !slices.Contains(l.Versions, s.Version) {
			l.Versions = append(l.Versions, s.Version)
			slices.Sort(l.Versions)
		}
	}
}

// Lacking says which of the families fs a member did not export in the
// window ("m1, m2 export no grpc_server_handled_total"), "" when every
// member exported them all.
func (l RegistryLoad) Lacking(fs ...cluster.Family) string {
	var parts []string
	for _, f := range fs {
		if ms := slices.Sorted(slices.Values(l.Missing[f])); len(ms) > 0 {
			verb := "exports"
			if len(ms) > 1 {
				verb = "export"
			}
			parts = append(parts, fmt.Sprintf("%s%s %s no %s", strings.Join(ms, ", "), l.versionNote(), verb, f))
		}
	}
	return strings.Join(parts, "; ")
}

// versionNote is " (etcd 3.4.25)", or "" when no member said its version.
func (l RegistryLoad) versionNote() string {
	if len(l.Versions) == 0 {
		return ""
	}
	return " (etcd " + strings.Join(l.Versions, ", ") + ")"
}

// DurationsMissing says why P50ms, P99ms and MeanMs are missing: a member
// does not export the histogram, or nothing was served in the window; ""
// when they are measured.
func (l RegistryLoad) DurationsMissing() string {
	if why := l.Lacking(cluster.FamilyDuration); why != "" {
		return why
	}
	if !(l.Served > 0) {
		return "no read or raft request was served in the window"
	}
	return ""
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

// leaderState is what a member's samples say of its leader over a window.
type leaderState int

const (
	// leaderUnknown: the member exported no etcd_server_has_leader or no
	// leader changes.
	leaderUnknown leaderState = iota
	// leaderKept: a leader in every sample and no leader change. etcd ends
	// a stream "no leader" only after 3 election timeouts without one
	// (v3rpc's monitorLeader); a spell without a leader that ended counts
	// as a leader change (the new leader is new after none), and one that
	// had not ended shows in the next sample.
	leaderKept
	// leaderLost: a sample without a leader, or a leader change.
	leaderLost
)

// addCounts adds the member's counters per bucket; a stream that ended
// Unavailable counts as closed by its client on a member that kept its
// leader, as an error on one that lost it, and as neither otherwise.
func (l *RegistryLoad) addCounts(ss []cluster.MetricSample, from int64, width time.Duration, leader leaderState) {
	kept, lost := one(leader == leaderKept), one(leader == leaderLost)
	fields := []struct {
		out []float64
		f   func(cluster.MetricSample) float64
	}{
		{l.Received, func(s cluster.MetricSample) float64 { return s.Started }},
		{l.OK, func(s cluster.MetricSample) float64 { return s.HandledOK + s.StreamsClosed + kept*noLeaderOrClosed(s) }},
		{l.Errors, func(s cluster.MetricSample) float64 { return s.HandledErr + lost*noLeaderOrClosed(s) }},
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

// one is 1 when b holds, else 0.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// noLeaderOrClosed is a sample's streams that ended for lack of a leader
// or closed by their clients (cluster.EndNoLeaderOrClosed).
func noLeaderOrClosed(s cluster.MetricSample) float64 { return s.StreamsUnavailable + s.StreamsUnknown }

// addStreams adds the member's streams closed by their clients over
// [from, to], and types by its leader those that ended for lack of a
// leader or closed by their clients.
func (l *RegistryLoad) addStreams(ss []cluster.MetricSample, from, to int64, leader leaderState) {
	delta := func(f func(cluster.MetricSample) float64) float64 { return value(ss, to, f) - value(ss, from, f) }
	l.ClosedByClients += delta(func(s cluster.MetricSample) float64 { return s.StreamsClosed })
	for code, f := range map[string]func(cluster.MetricSample) float64{
		"Unavailable": func(s cluster.MetricSample) float64 { return s.StreamsUnavailable },
		"Unknown":     func(s cluster.MetricSample) float64 { return s.StreamsUnknown },
	} {
		switch n := delta(f); {
		case n <= 0:
		case leader == leaderKept:
			l.ClosedByClients += n
			l.ClosedCodedAsErrors += n
		case leader == leaderLost:
			l.ErrCodes[code] += n
		default:
			l.Untyped += n
		}
	}
}

// addHealth notes leader changes, a missing leader and sampling gaps in
// [from, to], and returns what the samples say of the member's leader.
// A sample that does not hold a leader family says nothing of it.
func (l *RegistryLoad) addHealth(name string, ss []cluster.MetricSample, from, to int64) leaderState {
	first := at(ss, from)
	leaderless, known := false, !first.Lacks(cluster.FamilyHasLeader) && !first.Lacks(cluster.FamilyLeaderChanges)
	changes := 0.0
	prevT := first.T
	for _, s := range ss {
		if s.T < from || s.T > to {
			continue
		}
		if s.Lacks(cluster.FamilyHasLeader) || s.Lacks(cluster.FamilyLeaderChanges) {
			known = false
		} else {
			changes = max(changes, s.LeaderChanges-first.LeaderChanges)
			leaderless = leaderless || s.HasLeader == 0
		}
		l.MaxGap = max(l.MaxGap, time.Duration(s.T-prevT))
		prevT = s.T
	}
	l.LeaderChanges = max(l.LeaderChanges, changes)
	if leaderless {
		l.Leaderless = append(l.Leaderless, name)
	}
	switch {
	case leaderless || changes > 0:
		return leaderLost
	case known:
		return leaderKept
	}
	return leaderUnknown
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
	if len(l.Missing[cluster.FamilyDuration]) > 0 {
		l.Served = math.NaN()
	}
	if !(l.Served > 0) {
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
