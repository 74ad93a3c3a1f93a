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
