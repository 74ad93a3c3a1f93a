package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestReadMetricsSumsTheFamilies(t *testing.T) {
	reg := prometheus.NewRegistry()
	handled := prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricHandled}, []string{"grpc_method", "grpc_code"})
	started := prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricStarted}, []string{"grpc_method"})
	dur := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricDuration, Buckets: []float64{0.001, 0.01}}, []string{"type"})
	leader := prometheus.NewGauge(prometheus.GaugeOpts{Name: metricHasLeader})
	reg.MustRegister(handled, started, dur, leader)
	started.WithLabelValues("Put").Add(5)
	started.WithLabelValues("LeaseGrant").Add(3)
	handled.WithLabelValues("Put", "OK").Add(4)
	handled.WithLabelValues("Put", "DeadlineExceeded").Add(1)
	handled.WithLabelValues("LeaseGrant", "OK").Add(2)
	handled.WithLabelValues("LeaseGrant", "Unavailable").Add(0)
	handled.WithLabelValues("LeaseKeepAlive", "Canceled").Add(7)
	dur.WithLabelValues("Put").Observe(0.0005)
	dur.WithLabelValues("LeaseGrant").Observe(0.005)
	leader.Set(1)
	s, err := readMetrics(reg, time.Unix(0, 42))
	if err != nil {
		t.Fatal(err)
	}
	if s.T != 42 || s.Started != 8 || s.HandledOK != 6 || s.HandledErr != 1 || s.KeepAliveClosed != 7 || s.HasLeader != 1 {
		t.Fatalf("sample %+v", s)
	}
	if len(s.ErrCodes) != 1 || s.ErrCodes["DeadlineExceeded"] != 1 {
		t.Errorf("error codes %v, want only DeadlineExceeded: 1", s.ErrCodes)
	}
	if d := s.Duration; d.Count != 2 || fmt.Sprint(d.Bounds) != "[0.001 0.01]" || fmt.Sprint(d.Counts) != "[1 2]" {
		t.Errorf("duration histogram %+v", d)
	}
}

func TestCollectMetricsInsideTheMembers(t *testing.T) {
	c, _ := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	m, err := c.CollectMetrics(50 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := cli.Put(ctx, fmt.Sprintf("/m/%d", i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	out := m.Stop()
	// Counters are totals since each member started: the first sample may
	// come after some of the puts (the sampler starts on its own ticker), so
	// the last sample is judged, not the difference.
	started, leaders := 0.0, 0.0
	for _, mm := range out {
		if mm.Lost != "" || len(mm.Samples) < 10 {
			t.Fatalf("%s: lost %q, %d samples", mm.Name, mm.Lost, len(mm.Samples))
		}
		last := mm.Samples[len(mm.Samples)-1]
		started += last.Started
		leaders += last.IsLeader
		if last.HasLeader != 1 || last.Puts < 100 || len(last.Duration.Bounds) == 0 {
			t.Errorf("%s: has_leader %g, puts %g (want ≥ 100: every member applies every put), duration %+v", mm.Name, last.HasLeader, last.Puts, last.Duration)
		}
	}
	if started < 100 || leaders != 1 {
		t.Errorf("gRPC calls started %g (want ≥ 100), leaders %g (want 1)", started, leaders)
	}
}
