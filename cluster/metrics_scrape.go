package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
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

// fetchMetrics reads url (a member's /metrics) and returns the answer and
// when its headers arrived: the member gathers its metrics just before it
// writes them (promhttp), while the request may wait long before that in a
// loaded member, so the moment the request left would date the reading too
// early.
func fetchMetrics(ctx context.Context, c *http.Client, url string) ([]byte, time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, time.Time{}, err
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := c.Do(req)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading %s: %w", url, err)
	}
	t := time.Now()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, t, fmt.Errorf("reading %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, t, fmt.Errorf("reading %s: %w", url, err)
	}
	return body, t, nil
}

// scrape reads one sample from url (a member's /metrics).
func scrape(ctx context.Context, c *http.Client, url string) (MetricSample, error) {
	body, t, err := fetchMetrics(ctx, c, url)
	if err != nil {
		return MetricSample{}, err
	}
	s, err := parseSample(body, t)
	if err != nil {
		return MetricSample{}, fmt.Errorf("parsing %s: %w", url, err)
	}
	return s, nil
}

// parseFamilies parses the families a sample reads from a metrics
// endpoint's answer (Prometheus text format). A family the answer declares
// whose samples sampledLines left out (every gRPC counter at zero) is
// there with no metric: the member exports it.
func parseFamilies(body []byte) (map[string]*dto.MetricFamily, error) {
	kept := sampledLines(body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(kept))
	if err != nil {
		return nil, err
	}
	for _, name := range declaredFamilies(kept) {
		if _, ok := mfs[name]; !ok {
			mfs[name] = &dto.MetricFamily{Name: &name}
		}
	}
	return mfs, nil
}

// declaredFamilies returns the families a text-format body declares
// ("# TYPE name type").
func declaredFamilies(body []byte) []string {
	var out []string
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte{'\n'})
		body = rest
		if decl, ok := bytes.CutPrefix(line, []byte("# TYPE ")); ok {
			name, _, _ := bytes.Cut(decl, []byte{' '})
			out = append(out, string(name))
		}
	}
	return out
}

// parseSample reads a sample taken at t from a metrics endpoint's answer.
func parseSample(body []byte, t time.Time) (MetricSample, error) {
	mfs, err := parseFamilies(body)
	if err != nil {
		return MetricSample{}, err
	}
	s := MetricSample{T: t.UnixNano()}
	list := make([]*dto.MetricFamily, 0, len(mfs))
	for _, mf := range mfs {
		list = append(list, mf)
	}
	s.addFamilies(list)
	return s, nil
}

// sampledLines keeps the lines of body (Prometheus text format) that a
// MetricSample reads: the families it sums, with their HELP and TYPE
// lines, and of the gRPC counters only those that are not zero. etcd's
// /metrics holds about 1500 samples in 175 KB, half of them
// grpc_server_handled_total for codes never seen; parsing them all costs
// the harness about 10 ms a reading, three members ten times a second
// a third of a core, where the families read cost a tenth of that.
func sampledLines(body []byte) []byte {
	out := make([]byte, 0, len(body)/8)
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte{'\n'})
		body = rest
		if keepLine(line) {
			out = append(append(out, line...), '\n')
		}
	}
	return out
}

// keepLine reports whether a line of the text format belongs to a family
// a MetricSample reads (a gRPC counter's zero samples left out).
func keepLine(line []byte) bool {
	name := line
	if c, ok := bytes.CutPrefix(line, []byte("# ")); ok { // "# HELP name …", "# TYPE name …"
		_, name, _ = bytes.Cut(c, []byte{' '})
	}
	if i := bytes.IndexAny(name, "{ "); i >= 0 {
		name = name[:i]
	}
	fam := string(name)
	switch {
	case fam == metricDuration+"_bucket" || fam == metricDuration+"_sum" || fam == metricDuration+"_count":
		return true
	case fam == metricHandled || fam == metricStarted:
		return line[0] == '#' || !bytes.HasSuffix(line, []byte(" 0"))
	}
	_, ok := sampledFamilies[fam]
	return ok
}

// sampledFamilies are the families a MetricSample reads.
var sampledFamilies = func() map[string]*float64 {
	m := (&MetricSample{}).scalars()
	m[metricDuration], m[metricVersion] = nil, nil
	return m
}()

// MetricsURL returns the member's metrics endpoint (/metrics on its client URL).
func (n *Node) MetricsURL() string { return n.ClientURL() + "/metrics" }

// Scrape reads the member's metrics once over HTTP, as from outside (its
// process's CPU time and resident memory among them).
func (n *Node) Scrape(ctx context.Context) (MetricSample, error) {
	c := metricsClient()
	defer c.CloseIdleConnections()
	return scrape(ctx, c, n.MetricsURL())
}
