package cluster

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"go.etcd.io/etcd/client/pkg/v3/transport"

	"sdchaos/childproc"
)

// readerCommand is the hidden sub-command of a metrics reader: a small
// process of the harness that reads one member's /metrics every interval
// and keeps the samples until the harness takes them (the same control
// commands as a member's own sampler). In its own process the readings
// are taken on time and dated when their answers arrive, whatever the
// harness's thousands of goroutines are doing: read from the harness
// itself during a storm, the samples of an immediate heal were dated late
// and the spike read half its height.
const readerCommand = "__metrics-reader"

func init() { childproc.Register(readerCommand, readerMain) }

// readerArgs are a reader's parameters: the member's metrics URL and the
// run's TLS files (etcdctl's --cacert, --cert, --key).
type readerArgs struct{ url, cacert, cert, key string }

func (a readerArgs) argv() []string {
	return []string{"--url", a.url, "--cacert", a.cacert, "--cert", a.cert, "--key", a.key}
}

func parseReaderArgs(args []string) (readerArgs, error) {
	var a readerArgs
	fs := flag.NewFlagSet(readerCommand, flag.ContinueOnError)
	fs.StringVar(&a.url, "url", "", "the member's metrics URL")
	fs.StringVar(&a.cacert, "cacert", "", "CA bundle")
	fs.StringVar(&a.cert, "cert", "", "client certificate")
	fs.StringVar(&a.key, "key", "", "client key")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	if a.url == "" {
		return a, fmt.Errorf("--url is required")
	}
	return a, nil
}

// client returns the reader's HTTP client.
func (a readerArgs) client() (*http.Client, error) {
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}
	if a.cacert+a.cert+a.key != "" {
		cfg, err := (transport.TLSInfo{TrustedCAFile: a.cacert, CertFile: a.cert, KeyFile: a.key}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("TLS settings: %w", err)
		}
		tr.TLSClientConfig = cfg
	}
	return &http.Client{Transport: tr, Timeout: scrapeTimeout}, nil
}

// readerMain serves the control channel until the harness closes it.
func readerMain(args []string) int {
	a, err := parseReaderArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, readerCommand+":", err)
		return 2
	}
	c, err := a.client()
	if err != nil {
		fmt.Fprintln(os.Stderr, readerCommand+":", err)
		return 2
	}
	r := &reader{g: &httpGatherer{url: a.url, c: c}}
	r.s = &sampler{g: r.g}
	childproc.Serve(r.handle)
	return 0
}

// reader is a metrics reader's state: the sampler of a member's own
// process, over HTTP.
type reader struct {
	g *httpGatherer
	s *sampler
}

// handle answers the member sampler's commands; "metrics start" first reads
// once (a member that does not answer is an error at once), "metrics take"
// fails when no reading succeeded for scrapeLostAfter.
func (r *reader) handle(line string) (string, error) {
	verb, arg, _ := strings.Cut(line, " ")
	if verb != "metrics" {
		return "", fmt.Errorf("unknown command %q", verb)
	}
	switch sub, _, _ := strings.Cut(arg, " "); sub {
	case "start":
		if _, _, err := r.g.GatherStamped(); err != nil {
			return "", err
		}
	case "take":
		if err := r.g.lost(); err != nil {
			return "", err
		}
	}
	return r.s.handle(arg)
}

// httpGatherer gathers a member's families over its metrics endpoint and
// remembers when a reading last succeeded.
type httpGatherer struct {
	url     string
	c       *http.Client
	mu      sync.Mutex
	lastOK  time.Time
	lastErr error
}

// Gather reads the member's families.
func (g *httpGatherer) Gather() ([]*dto.MetricFamily, error) {
	mfs, _, err := g.GatherStamped()
	return mfs, err
}

// GatherStamped reads the member's families and when the answer arrived.
func (g *httpGatherer) GatherStamped() ([]*dto.MetricFamily, time.Time, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	body, t, err := fetchMetrics(ctx, g.c, g.url)
	var byName map[string]*dto.MetricFamily
	if err == nil {
		byName, err = parseFamilies(body)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.lastErr = err
		return nil, t, err
	}
	g.lastOK = time.Now()
	out := make([]*dto.MetricFamily, 0, len(byName))
	for _, mf := range byName {
		out = append(out, mf)
	}
	return out, t, nil
}

// lost says why the member counts as lost: no reading succeeded for
// scrapeLostAfter.
func (g *httpGatherer) lost() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if time.Since(g.lastOK) > scrapeLostAfter {
		return fmt.Errorf("its metrics endpoint stopped answering (%v)", g.lastErr)
	}
	return nil
}
