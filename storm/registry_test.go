package storm

import (
	"math"
	"testing"
	"time"

	"sdchaos/cluster"
)

// member returns samples every 100 ms from t0 for secs seconds: calls start
// at perSec per second (all answered OK but every tenth), and each sample's
// duration histogram adds perSec/10 requests of 5 ms.
func member(name string, t0 time.Time, offset time.Duration, secs int, perSec float64) cluster.MemberMetrics {
	m := cluster.MemberMetrics{Name: name}
	for i := 0; i <= secs*10; i++ {
		at := offset + time.Duration(i)*100*time.Millisecond
		n := perSec * at.Seconds()
		c := float64(i) * perSec / 10
		m.Samples = append(m.Samples, cluster.MetricSample{T: t0.Add(at).UnixNano(), Started: n, HandledOK: 0.9 * n, HandledErr: 0.1 * n,
			HasLeader: 1, ErrCodes: map[string]float64{"DeadlineExceeded": 0.1 * n},
			Duration: cluster.Histogram{Count: c, Sum: 0.005 * c, Bounds: []float64{0.001, 0.002, 0.004, 0.008}, Counts: []float64{0, 0, 0, c}}})
	}
	return m
}

func TestMeasureRegistrySumsMembersPerBucket(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := []cluster.MemberMetrics{member("n1", t0, 0, 3, 1000), member("n2", t0, 50*time.Millisecond-time.Second, 4, 2000)}
	l := MeasureRegistry(ms, t0.Add(time.Second).UnixNano(), 100*time.Millisecond, 10)
	if l.Members != 2 {
		t.Fatalf("members %d", l.Members)
	}
	for b, v := range l.Received {
		if math.Abs(v-300) > 1e-6 || math.Abs(l.Errors[b]-30) > 1e-6 {
			t.Fatalf("bucket %d: received %g errors %g, want 300 and 30", b, v, l.Errors[b])
		}
	}
	if math.Abs(l.TotalReceived-3000) > 1e-6 || math.Abs(l.ErrCodes["DeadlineExceeded"]-300) > 1 {
		t.Errorf("total %g, codes %v", l.TotalReceived, l.ErrCodes)
	}
	if math.Abs(l.MeanMs-5) > 1e-9 || l.P50ms <= 4 || l.P50ms > 8 || l.P99ms > 8 || l.TooSlow {
		t.Errorf("durations mean %g p50 %g p99 %g", l.MeanMs, l.P50ms, l.P99ms)
	}
	if l.FellOver() || l.MaxGap != 100*time.Millisecond {
		t.Errorf("fell over %v (%s), gap %s", l.FellOver(), l.HowFell(), l.MaxGap)
	}
	if l.Covered != 2*time.Second { // n1's samples end 2 s after the window's start, n2's 2.05 s
		t.Errorf("covered %s, want the least member's 2s", l.Covered)
	}
}

func TestMeasureRegistrySeesTheRegistryFallOver(t *testing.T) {
	t0 := time.Unix(1000, 0)
	n1, n2 := member("n1", t0, 0, 3, 100), member("n2", t0, 0, 3, 100)
	for i := range n1.Samples {
		if i >= 15 {
			n1.Samples[i].LeaderChanges = 1
		}
		if i == 12 {
			n1.Samples[i].HasLeader = 0
		}
	}
	n2.Lost = "its process exited"
	l := MeasureRegistry([]cluster.MemberMetrics{n1, n2}, t0.Add(time.Second).UnixNano(), 100*time.Millisecond, 10)
	if !l.FellOver() || l.LeaderChanges != 1 || len(l.Leaderless) != 1 || len(l.Lost) != 1 || l.Falls() != 3 {
		t.Errorf("fell over %v: %s", l.FellOver(), l.HowFell())
	}
	late := MeasureRegistry([]cluster.MemberMetrics{member("n3", t0, 2*time.Second, 1, 100)}, t0.Add(time.Second).UnixNano(), 100*time.Millisecond, 10)
	if late.Members != 0 {
		t.Errorf("a member sampled only after the window's start counted")
	}
}

func TestQuantileBeyondTheLastBound(t *testing.T) {
	h := cluster.Histogram{Count: 100, Bounds: []float64{0.001, 0.01}, Counts: []float64{50, 90}}
	if ms, beyond := quantile(0.5, h); ms != 1 || beyond {
		t.Errorf("p50 %g %v", ms, beyond)
	}
	if ms, beyond := quantile(0.99, h); ms != 10 || !beyond {
		t.Errorf("p99 %g %v, want the last bound and beyond", ms, beyond)
	}
}

// TestStreamsNoLeaderOrClosedAreTypedByTheLeader: on a member before etcd
// 3.7 a stream its client cancelled ends Unavailable (or, on 3.4's
// LeaseKeepAlive, Unknown), as one the member ended for lack of a leader
// does; the window's leader decides which it was.
func TestStreamsNoLeaderOrClosedAreTypedByTheLeader(t *testing.T) {
	t0 := time.Unix(1000, 0)
	from := t0.Add(time.Second).UnixNano()
	tests := []struct {
		name                      string
		code                      string
		change                    func(i int, s *cluster.MetricSample)
		ok, errs, closed, untyped float64
	}{
		{"a leader throughout: closed by their clients", "Unavailable", func(int, *cluster.MetricSample) {}, 900 + 200, 100, 200, 0},
		{"Unknown (3.4's ErrCanceled), a leader throughout: closed by their clients", "Unknown", func(int, *cluster.MetricSample) {}, 900 + 200, 100, 200, 0},
		{"a sample without a leader: the registry's errors", "Unavailable", func(i int, s *cluster.MetricSample) { s.HasLeader = one(i != 15) }, 900, 100 + 200, 0, 0},
		{"Unknown, a leader change: the registry's errors", "Unknown", func(i int, s *cluster.MetricSample) { s.LeaderChanges = one(i >= 18) }, 900, 100 + 200, 0, 0},
		{"no leader state exported: neither", "Unavailable", func(_ int, s *cluster.MetricSample) {
			s.Missing = []cluster.Family{cluster.FamilyHasLeader}
		}, 900, 100, 0, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := member("n1", t0, 0, 3, 1000)
			for i := range m.Samples {
				s := &m.Samples[i]
				if tc.code == "Unknown" {
					s.StreamsUnknown = 0.2 * s.Started // 200 over the window's second
				} else {
					s.StreamsUnavailable = 0.2 * s.Started
				}
				s.Version = "3.4.25"
				tc.change(i, s)
			}
			l := MeasureRegistry([]cluster.MemberMetrics{m}, from, 100*time.Millisecond, 10)
			if !near(l.TotalOK, tc.ok) || !near(l.TotalErrors, tc.errs) || !near(l.ClosedByClients, tc.closed) || !near(l.Untyped, tc.untyped) {
				t.Errorf("ok %g, errors %g, closed %g, untyped %g; want %g, %g, %g, %g",
					l.TotalOK, l.TotalErrors, l.ClosedByClients, l.Untyped, tc.ok, tc.errs, tc.closed, tc.untyped)
			}
			if tc.errs > 100 && !near(l.ErrCodes[tc.code], 200) {
				t.Errorf("error codes %v, want %s 200", l.ErrCodes, tc.code)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestMissingFamiliesAreMissingNotZero: a member that exports no duration
// histogram leaves the durations missing, with why; one that exports it
// but served nothing in the window says so.
func TestMissingFamiliesAreMissingNotZero(t *testing.T) {
	t0 := time.Unix(1000, 0)
	from := t0.Add(time.Second).UnixNano()
	ms := []cluster.MemberMetrics{member("m1", t0, 0, 3, 1000), member("m2", t0, 0, 3, 1000)}
	for j := range ms {
		for i := range ms[j].Samples {
			s := &ms[j].Samples[i]
			s.Duration, s.Missing, s.Version = cluster.Histogram{}, []cluster.Family{cluster.FamilyDuration}, "3.4.25"
		}
	}
	l := MeasureRegistry(ms, from, 100*time.Millisecond, 10)
	want := "m1, m2 (etcd 3.4.25) export no etcd_server_request_duration_seconds"
	if !math.IsNaN(l.P99ms) || !math.IsNaN(l.Served) || l.DurationsMissing() != want {
		t.Errorf("p99 %g, served %g, why %q; want NaN, NaN and %q", l.P99ms, l.Served, l.DurationsMissing(), want)
	}
	if l.Lacking(cluster.FamilyHandled, cluster.FamilyStarted) != "" {
		t.Errorf("lacking %q, want nothing", l.Lacking(cluster.FamilyHandled, cluster.FamilyStarted))
	}
	idle := member("m1", t0, 0, 3, 0)
	l = MeasureRegistry([]cluster.MemberMetrics{idle}, from, 100*time.Millisecond, 10)
	if !math.IsNaN(l.P99ms) || l.Served != 0 || l.DurationsMissing() != "no read or raft request was served in the window" {
		t.Errorf("idle: p99 %g, served %g, why %q", l.P99ms, l.Served, l.DurationsMissing())
	}
}
