package cluster

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"sdchaos/etcdcli"
)

// A member the harness did not start cannot sample itself: the harness
// reads its metrics endpoint (/metrics on the client URL, Prometheus text
// format, as every etcd serves it) over HTTP, parses it with Prometheus'
// own parser (expfmt) and sums the families into a MetricSample with the
// same code as the in-process sampler. The reading then travels the
// network and waits for the harness: under load its samples come later and
// further apart than a member's own, which the storm's sampling gate sees.

// The process metrics every Prometheus Go client exports (its process
// collector, which etcd registers): what an external member's process
// spent, where the harness cannot read its /proc.
const (
	metricProcessCPU = "process_cpu_seconds_total"
	metricProcessRSS = "process_resident_memory_bytes"
)

// scrapeTimeout bounds one reading; scrapeLostAfter is how long readings
// may fail before the member counts as lost.
const (
	scrapeTimeout   = 2 * time.Second
	scrapeLostAfter = takeTimeout
)

// metricsClient returns an HTTP client for the members' metrics endpoints,
// with the run's TLS (etcd serves /metrics on its client port, behind the
// same client certificates). The endpoint needs no etcd auth.
func metricsClient() *http.Client {
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}
	if t := etcdcli.Current().TLS; t != nil {
		tr.TLSClientConfig = t.Clone()
		tr.TLSClientConfig.NextProtos = nil
	}
	return &http.Client{Transport: tr, Timeout: scrapeTimeout}
}

// scrape reads one sample from url (a member's /metrics). Its time is the
// middle of the wait for the answer's headers: the member gathers its
// metrics in between.
func scrape(ctx context.Context, c *http.Client, url string) (MetricSample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return MetricSample{}, err
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return MetricSample{}, fmt.Errorf("reading %s: %w", url, err)
	}
	t1 := time.Now()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return MetricSample{}, fmt.Errorf("reading %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return MetricSample{}, fmt.Errorf("parsing %s: %w", url, err)
	}
	s := MetricSample{T: t0.Add(t1.Sub(t0) / 2).UnixNano()}
	for _, mf := range mfs {
		s.addFamily(mf)
	}
	return s, nil
}

// MetricsURL returns the member's metrics endpoint (/metrics on its client URL).
func (n *Node) MetricsURL() string { return n.ClientURL() + "/metrics" }

// Scrape reads the member's metrics once over HTTP, as from outside (its
// process's CPU time and resident memory among them).
func (n *Node) Scrape(ctx context.Context) (MetricSample, error) {
	c := metricsClient()
	defer c.CloseIdleConnections()
	return scrape(ctx, c, n.MetricsURL())
}

// scrapeSource samples one member by reading its /metrics every interval
// from the harness, in a goroutine of its own.
type scrapeSource struct {
	url     string
	c       *http.Client
	mu      sync.Mutex
	samples []MetricSample
	lastOK  time.Time
	lastErr error
	stopc   chan struct{}
	done    chan struct{}
}

func newScrapeSource(n *Node) *scrapeSource {
	return &scrapeSource{url: n.MetricsURL(), c: metricsClient()}
}

// start begins reading every interval; the first reading must succeed.
func (s *scrapeSource) start(interval time.Duration) error {
	if err := s.read(); err != nil {
		return err
	}
	s.stopc, s.done = make(chan struct{}), make(chan struct{})
	go s.loop(interval)
	return nil
}

func (s *scrapeSource) loop(interval time.Duration) {
	defer close(s.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stopc:
			_ = s.read() // the last sample is as of the stop
			return
		case <-t.C:
			_ = s.read()
		}
	}
}

// read takes one sample and keeps it, or notes why it could not.
func (s *scrapeSource) read() error {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	m, err := scrape(ctx, s.c, s.url)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.lastErr = err
		return err
	}
	s.samples, s.lastOK = append(s.samples, m), time.Now()
	return nil
}

// take returns the samples read since the last take; an error when no
// reading succeeded for scrapeLostAfter (the member counts as lost).
func (s *scrapeSource) take() ([]MetricSample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.samples
	s.samples = nil
	if time.Since(s.lastOK) > scrapeLostAfter {
		return out, fmt.Errorf("its metrics endpoint stopped answering (%v)", s.lastErr)
	}
	return out, nil
}

// stop ends the readings (after a last one).
func (s *scrapeSource) stop() {
	if s.stopc != nil {
		close(s.stopc)
		<-s.done
		s.stopc = nil
	}
	s.c.CloseIdleConnections()
}
