package eurekareal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/jvm"
	"sdchaos/ports"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// testBase is the start of this package's port range (clear of the other
// packages' tests and of the other registries' helpers).
const testBase = 4600

// scaledProps are the scaled intervals of the tests: renew 1 s, lease 3 s,
// eviction every 1000 ms, expected-client renewal 1 s, fetch 1 s.
func scaledProps() Props {
	p := DefaultProps()
	p.RenewInterval, p.LeaseDuration, p.FetchInterval = time.Second, 3*time.Second, time.Second
	p.EvictionInterval, p.ExpectedRenewInterval = time.Second, time.Second
	p.CacheUpdate, p.PeerTimeout = time.Second, time.Second
	p.ConnectTimeout, p.ReadTimeout = time.Second, 2*time.Second
	return p
}

// startCluster starts a real cluster for a test, skipping when the machine
// has no JVM tools.
func startCluster(t *testing.T, ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec) []*Server {
	t.Helper()
	spec.Logf = func(f string, a ...any) { t.Logf(f, a...) }
	start := time.Now()
	servers, err := StartCluster(ctx, sup, alloc, spec)
	if jvm.Missing(err) || errors.Is(err, ErrNoFaketime) {
		t.Skipf("no real Eureka on this machine: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("StartCluster took %.1f s (build included)", time.Since(start).Seconds())
	for _, s := range servers {
		rss, _ := s.RSS()
		t.Logf("%s: open %.1f s after launch, probes replicated within %d ms, RSS %d MiB", s.Name, s.Startup.Seconds(),
			s.Replication.Milliseconds(), rss>>20)
	}
	return servers
}

func newSupervisor(t *testing.T) *childproc.Supervisor {
	t.Helper()
	sup, err := childproc.NewSupervisor(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return sup
}

func serviceURLs(servers []*Server) []string {
	out := make([]string, len(servers))
	for i, s := range servers {
		out[i] = s.ServiceURL
	}
	return out
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(ctx context.Context, d time.Duration, what string, cond func() bool) (time.Duration, error) {
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			return 0, fmt.Errorf("%s: not within %s", what, d)
		}
		if err := clock.SleepFor(ctx, 20*time.Millisecond); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}
