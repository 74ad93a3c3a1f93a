package cluster

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"go.etcd.io/etcd/api/v3/version"
	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/procstat"
	"sdchaos/report"
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
	s, err := readMetrics(reg, func() time.Time { return time.Unix(0, 42) })
	if err != nil {
		t.Fatal(err)
	}
	if s.T != 42 || s.Started != 8 || s.HandledOK != 6 || s.HandledErr != 1 || s.StreamsClosed != 7 || s.HasLeader != 1 {
		t.Fatalf("sample %+v", s)
	}
	if len(s.ErrCodes) != 1 || s.ErrCodes["DeadlineExceeded"] != 1 {
		t.Errorf("error codes %v, want only DeadlineExceeded: 1", s.ErrCodes)
	}
	if d := s.Duration; d.Count != 2 || fmt.Sprint(d.Bounds) != "[0.001 0.01]" || fmt.Sprint(d.Counts) != "[1 2]" {
		t.Errorf("duration histogram %+v", d)
	}
}

// TestTextFormatGivesTheSameSample: what a member would answer on its
// /metrics (the registry in the Prometheus text format, with families the
// sample does not read and zero-valued gRPC counters, which sampledLines
// leaves out) parses into the sample the in-process reading gives.
func TestTextFormatGivesTheSameSample(t *testing.T) {
	reg := prometheus.NewRegistry()
	handled := prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricHandled}, []string{"grpc_method", "grpc_code"})
	started := prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricStarted}, []string{"grpc_method"})
	dur := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricDuration, Buckets: []float64{0.001, 0.01}}, []string{"type"})
	other := prometheus.NewCounter(prometheus.CounterOpts{Name: "etcd_network_peer_sent_bytes_total"})
	rss := prometheus.NewGauge(prometheus.GaugeOpts{Name: metricProcessRSS})
	reg.MustRegister(handled, started, dur, other, rss)
	started.WithLabelValues("Put").Add(5)
	handled.WithLabelValues("Put", "OK").Add(4)
	handled.WithLabelValues("Put", "Unavailable").Add(0)
	handled.WithLabelValues("LeaseKeepAlive", "Canceled").Add(3)
	handled.WithLabelValues("Put", "DeadlineExceeded").Add(1)
	dur.WithLabelValues("Put").Observe(0.005)
	dur.WithLabelValues("Put").Observe(2)
	other.Add(1e6)
	rss.Set(42 << 20)
	want, err := readMetrics(reg, func() time.Time { return time.Unix(0, 7) })
	if err != nil {
		t.Fatal(err)
	}
	mfs, _ := reg.Gather()
	var text bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&text, mf); err != nil {
			t.Fatal(err)
		}
	}
	got, err := parseSample(text.Bytes(), time.Unix(0, 7))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
		t.Errorf("over the text format:\n%s\nin-process:\n%s", g, w)
	}
	if kept := sampledLines(text.Bytes()); bytes.Contains(kept, []byte("peer_sent")) || bytes.Contains(kept, []byte(`grpc_code="Unavailable"`)) {
		t.Errorf("sampledLines kept what the sample does not read:\n%s", kept)
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
	m, err := c.CollectMetrics(50*time.Millisecond, SampleAuto)
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
		if last.Version != version.Version || len(last.Missing) > 0 { // the calls' ends are typed by it
			t.Errorf("%s: version %q (want %s), missing %v", mm.Name, last.Version, version.Version, last.Missing)
		}
		if last.HasLeader != 1 || last.Puts < 100 || len(last.Duration.Bounds) == 0 {
			t.Errorf("%s: has_leader %g, puts %g (want ≥ 100: every member applies every put), duration %+v", mm.Name, last.HasLeader, last.Puts, last.Duration)
		}
	}
	if started < 100 || leaders != 1 {
		t.Errorf("gRPC calls started %g (want ≥ 100), leaders %g (want 1)", started, leaders)
	}
}

// TestHTTPSamplingAgreesWithInProcess reads the same members both ways at
// once — inside each member's process and over its /metrics endpoint by a
// metrics reader, as from outside — while bursts of puts arrive: the
// counters must agree once the load stopped; the peak of calls per 100 ms
// summed over the members (what the storm judges) of each reading no higher
// than the other puts within edge buckets of any bucket (each reads at its
// own instants, at most its longest gap apart, interpolates between them,
// and over HTTP dates a sample up to one more gap late: when its answer
// arrives, the reader waiting for one answer before it reads again); and
// the process figures (from /metrics) must agree with /proc.
func TestHTTPSamplingAgreesWithInProcess(t *testing.T) {
	c, _ := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	own, err := c.CollectMetrics(100*time.Millisecond, SampleAuto)
	if err != nil {
		t.Fatal(err)
	}
	http, err := c.CollectMetrics(100*time.Millisecond, SampleHTTP)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	for burst := range 3 {
		putBurst(ctx, t, cli, burst, 600)
		time.Sleep(700 * time.Millisecond)
	}
	a, b := own.Stop(), http.Stop()
	var gapA, gapB int64
	for i := range a {
		gapA, gapB = max(gapA, int64(maxGap(a[i].Samples))), max(gapB, int64(maxGap(b[i].Samples)))
		la, lb := a[i].Samples[len(a[i].Samples)-1], b[i].Samples[len(b[i].Samples)-1]
		if la.Started != lb.Started || la.HandledOK != lb.HandledOK || la.Puts != lb.Puts || la.Duration.Count != lb.Duration.Count {
			t.Errorf("%s at the end: in-process started %g ok %g puts %g served %g; over HTTP %g %g %g %g", a[i].Name,
				la.Started, la.HandledOK, la.Puts, la.Duration.Count, lb.Started, lb.HandledOK, lb.Puts, lb.Duration.Count)
		}
		t.Logf("%s: %d samples in-process, %d over HTTP; longest gap %s / %s", a[i].Name, len(a[i].Samples), len(b[i].Samples),
			maxGap(a[i].Samples), maxGap(b[i].Samples))
	}
	ga, gb := perBucket(a), perBucket(b)
	var peakA, peakB, diff, total float64
	for k := range min(len(ga), len(gb)) {
		peakA, peakB = max(peakA, ga[k]), max(peakB, gb[k])
		diff += abs(ga[k] - gb[k])
		total += ga[k]
	}
	// Which 100 ms a call lands in depends on where each sampler's ticks
	// fall within the burst (the counters are interpolated between samples
	// 100 ms apart): the share in another bucket is reported, not judged.
	t.Logf("calls started per 100 ms, summed over the members: peak %.0f in-process, %.0f over HTTP; %.0f of %.0f calls in another bucket (%.0f %%)",
		peakA, peakB, diff/2, total, 100*diff/2/total)
	step := int64(100 * time.Millisecond)
	edge := int((gapA+2*gapB+step-1)/step) + 1
	if peakA > report.WindowMax(gb, edge) || peakB > report.WindowMax(ga, edge) {
		t.Errorf("the two samplings disagree: peak %.0f in-process, %.0f over HTTP, each more than the other has within %d buckets of any bucket", peakA, peakB, edge)
	}
	checkProcessFigures(ctx, t, c)
}

// putBurst puts n keys from 32 goroutines at once.
func putBurst(ctx context.Context, t *testing.T, cli *clientv3.Client, burst, n int) {
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := g; i < n; i += 32 {
				if _, err := cli.Put(ctx, fmt.Sprintf("/agree/%d/%d", burst, i), "v"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// perBucket returns the calls started per 100 ms summed over the members,
// on a grid from the latest first sample to the earliest last one, each
// counter interpolated linearly between its samples (as the storm does).
func perBucket(ms []MemberMetrics) []float64 {
	from, to := int64(0), int64(math.MaxInt64)
	for _, m := range ms {
		from, to = max(from, m.Samples[0].T), min(to, m.Samples[len(m.Samples)-1].T)
	}
	step := int64(100 * time.Millisecond)
	out := make([]float64, max((to-from)/step, 0))
	for _, m := range ms {
		for k := range out {
			t := from + int64(k)*step
			out[k] += startedAt(m.Samples, t+step) - startedAt(m.Samples, t)
		}
	}
	return out
}

func startedAt(ss []MetricSample, t int64) float64 {
	for i := 1; i < len(ss); i++ {
		if ss[i].T >= t {
			a, b := ss[i-1], ss[i]
			return a.Started + (b.Started-a.Started)*float64(t-a.T)/float64(b.T-a.T)
		}
	}
	return ss[len(ss)-1].Started
}

func maxGap(ss []MetricSample) time.Duration {
	var g int64
	for i := 1; i < len(ss); i++ {
		g = max(g, ss[i].T-ss[i-1].T)
	}
	return time.Duration(g).Round(time.Millisecond)
}

func abs(x float64) float64 { return math.Abs(x) }

// checkProcessFigures compares each member's CPU time and resident memory
// from its /metrics with /proc (what an embedded member's cost reads).
func checkProcessFigures(ctx context.Context, t *testing.T, c *Cluster) {
	for _, n := range c.Nodes() {
		st, err := procstat.Read(n.Child().Pid())
		if err != nil {
			t.Fatal(err)
		}
		m, err := n.Scrape(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rss := statusKB(t, n.Child().Pid(), "VmRSS:") << 10
		t.Logf("%s: CPU /proc %.2f s, /metrics %.2f s; RSS /proc %d MiB, /metrics %.0f MiB", n.Name, st.CPU.Seconds(), m.ProcessCPU, rss>>20, m.ProcessRSS/(1<<20))
		if d := m.ProcessCPU - st.CPU.Seconds(); d < -0.02 || d > 0.2 {
			t.Errorf("%s: CPU over /metrics %.2f s, /proc %.2f s", n.Name, m.ProcessCPU, st.CPU.Seconds())
		}
		if r := m.ProcessRSS / float64(rss); r < 0.9 || r > 1.1 {
			t.Errorf("%s: RSS over /metrics %.0f, /proc %d bytes", n.Name, m.ProcessRSS, rss)
		}
	}
}

// statusKB reads a "Name: N kB" line of /proc/<pid>/status.
func statusKB(t *testing.T, pid int, name string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	t.Fatalf("no %s in /proc/%d/status", name, pid)
	return 0
}
