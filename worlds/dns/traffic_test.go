package dns

import (
	"context"
	"sync"
	"testing"
	"time"

	"sdchaos/caller"
	"sdchaos/etcdcli"
	"sdchaos/fakeservice"
	"sdchaos/history"
)

// quorumTraffic is the clients' traffic during the quorum loss: Go's
// resolver through the server without a cache and through serve_stale,
// the gRPC client resolving through the node-local layer, and a keep
// policy caller refreshing through the server without a cache.
type quorumTraffic struct {
	rec                     *history.Recorder
	plain, stale, rpc, keep string
	degrade                 string
	wg                      sync.WaitGroup
	errs                    []error
	mu                      sync.Mutex
	closeRPC                func()
	traffic                 []caller.Traffic
}

// newQuorumTraffic builds the clients and primes the gRPC client and the
// keep caller (before the fault: a refresh fails after it).
func (w *testWorld) newQuorumTraffic(t *testing.T) *quorumTraffic {
	t.Helper()
	q := &quorumTraffic{plain: "go-plain", stale: "go-stale", rpc: "grpc-local", keep: "keep-plain", degrade: "clear-degrade"}
	rc := ResolverConfig{Rate: 4, Host: w.name(), QType: TypeSRV, Timeout: 2 * time.Second}
	rc.Name, rc.Server = q.plain, w.plain.Addr()
	goPlain := NewGoResolver(rc)
	rc.Name, rc.Server = q.stale, w.stale.Addr()
	goStale := NewGoResolver(rc)
	g, err := NewGRPCCaller(GRPCConfig{Name: q.rpc, Rate: 10, Server: w.local.Addr(), Host: w.name(),
		Port: w.insts.List[0].GRPCPort, CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Prime(context.Background()); err != nil {
		t.Fatal(err)
	}
	keep := w.keepCaller(t, q.keep)
	degrade, closeDegrade := w.degradeCaller(t, q.degrade)
	q.closeRPC = func() { g.Close(); keep.Close(); closeDegrade() }
	q.traffic = []caller.Traffic{goPlain, goStale, g, keep, degrade}
	return q
}

// start runs the clients for d from now.
func (q *quorumTraffic) start(d time.Duration) {
	q.rec = history.NewRecorder(time.Now())
	for _, tr := range q.traffic {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			if err := tr.Run(context.Background(), q.rec, d); err != nil {
				q.mu.Lock()
				q.errs = append(q.errs, err)
				q.mu.Unlock()
			}
		}()
	}
}

// check waits for the traffic to end and checks every op: every lookup
// through the server without a cache fails (EtcdReadBasis), every lookup
// through serve_stale and every gRPC call succeeds (StaleBasis,
// GRPCDNSBasis: the client keeps the addresses it resolved), and so does
// every call of the keep caller, whose refreshes fail; the clear caller
// that degrades to DNS (through serve_stale) refreshes and calls without
// a failure.
func (q *quorumTraffic) check(t *testing.T) {
	q.wg.Wait()
	q.closeRPC()
	for _, err := range q.errs {
		t.Errorf("traffic: %v", err)
	}
	want := map[string]bool{q.plain: false, q.stale: true, q.rpc: true, q.keep: true, q.keep + caller.RefreshSuffix: false,
		q.degrade: true, q.degrade + caller.RefreshSuffix: true}
	n := map[string][2]int{}
	for _, op := range q.rec.Ops() {
		c := n[op.Caller]
		if (op.Outcome == history.OK) == want[op.Caller] {
			c[0]++
		} else {
			c[1]++
			if c[1] == 1 {
				t.Errorf("%s: op %d at %.1f s: %s %q (count %d), want ok=%v", op.Caller, op.Seq, op.Start.Seconds(), op.Outcome, op.Err, op.Count, want[op.Caller])
			}
		}
		n[op.Caller] = c
	}
	for name := range want {
		t.Logf("%s during the quorum loss: %d ops as the rules say, %d not", name, n[name][0], n[name][1])
		if n[name][0] == 0 {
			t.Errorf("%s recorded no op as the rules say", name)
		}
	}
}

// keepCaller is a policy caller (keep its list when a refresh fails)
// whose refresh is Go's resolver through the server without a cache,
// primed with the live instances.
func (w *testWorld) keepCaller(t *testing.T, name string) *caller.Caller {
	t.Helper()
	src := NewGoResolver(ResolverConfig{Name: name, Server: w.plain.Addr(), Host: w.name(), QType: TypeSRV, Timeout: 2 * time.Second})
	cfg := caller.DefaultConfig(name)
	cfg.Rate, cfg.RefreshTimeout = 10, 2*time.Second
	c := caller.New(cfg, src)
	if err := c.Prime(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.List().Len(); got != len(w.alivePorts()) {
		t.Fatalf("caller %s primed with %d instances, want %d", name, got, len(w.alivePorts()))
	}
	return c
}

// degradeCaller is a policy caller that clears its list when a refresh
// fails, refreshing from etcd and degrading to DNS through the serve_stale
// server (DegradeSource); it returns the caller and what closes it.
func (w *testWorld) degradeCaller(t *testing.T, name string) (*caller.Caller, func()) {
	cli, err := etcdcli.New(w.etcd.Endpoints()...)
	if err != nil {
		t.Fatal(err)
	}
	src := DegradeSource{Primary: caller.EtcdSource{Client: cli, Prefix: fakeservice.Prefix + w.svc.Service + "/"},
		Fallback: StubSource{Server: w.stale.Addr(), Host: w.name(), Timeout: 1500 * time.Millisecond}, PrimaryTimeout: time.Second}
	cfg := caller.DefaultConfig(name)
	cfg.Rate, cfg.RefreshTimeout, cfg.Policy = 10, 3*time.Second, caller.Policy{OnError: caller.ClearList}
	c := caller.New(cfg, src)
	if err := c.Prime(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, func() { c.Close(); cli.Close() }
}
