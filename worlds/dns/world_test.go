package dns

import (
	"context"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/fakeservice"
	"sdchaos/ports"
)

// testWorld is the integration test's world: a real 3-member etcd,
// three instances with records, and the CoreDNS servers over them.
type testWorld struct {
	sup   *childproc.Supervisor
	alloc *ports.Allocator
	dir   string
	etcd  *cluster.Cluster
	insts *Instances
	svc   fakeservice.Config
	// plain has no cache; stale serve_stale immediate; verify serve_stale
	// verify; local is a node-local layer (cache, serve_stale immediate)
	// forwarding to plain.
	plain, stale, verify, local *Server
	// killed are the etcd members the quorum loss killed.
	killed []*cluster.Node
	// servFailAt is when the restarted serve_stale server cached a SERVFAIL.
	servFailAt time.Time
}

// testService is the instances' registration: ttl 5 s renewed every 1 s.
func testService() fakeservice.Config {
	return fakeservice.Config{Service: "api", TTL: 5 * time.Second, Renew: time.Second, CallTimeout: 2 * time.Second}
}

func startTestWorld(t *testing.T, sup *childproc.Supervisor) *testWorld {
	t.Helper()
	ctx := context.Background()
	w := &testWorld{sup: sup, alloc: ports.New(testPortBase, "testPortBase"), svc: testService()}
	var err error
	if w.dir, err = sup.TempDir("sdchaos-dns-*", false); err != nil {
		t.Fatal(err)
	}
	if w.etcd, err = cluster.Start(ctx, sup, w.alloc, cluster.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.etcd.Close)
	icfg := InstanceConfig{Service: w.svc, Zone: DefaultZone, Path: DefaultPath}
	if w.insts, err = StartInstances(ctx, icfg, 3, w.alloc, w.etcd.Endpoints()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.insts.Close)
	w.startServers(t)
	return w
}

func (w *testWorld) startServers(t *testing.T) {
	t.Helper()
	backend := &Backend{Endpoints: w.etcd.Endpoints()}
	w.plain = w.startServer(t, "plain", ServerConfig{Zone: DefaultZone, Etcd: backend})
	w.stale = w.startServer(t, "stale", ServerConfig{Zone: DefaultZone, Etcd: backend,
		Cache: &Cache{ServeStale: &ServeStale{Mode: StaleImmediate}}})
	w.verify = w.startServer(t, "verify", ServerConfig{Zone: DefaultZone, Etcd: backend,
		Cache: &Cache{ServeStale: &ServeStale{Mode: StaleVerify}}})
	w.local = w.startServer(t, "local", ServerConfig{Zone: DefaultZone,
		Forward: netip.MustParseAddrPort(w.plain.Addr()), Cache: &Cache{ServeStale: &ServeStale{Mode: StaleImmediate}}})
}

func (w *testWorld) startServer(t *testing.T, name string, cfg ServerConfig) *Server {
	t.Helper()
	s, err := StartServer(context.Background(), w.sup, w.alloc, w.dir, name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CoreDNS %s: answering %.0f ms after its process started (%s)", name, float64(s.ReadyIn().Milliseconds()), s.Addr())
	return s
}

func (w *testWorld) servers() []*Server { return []*Server{w.plain, w.stale, w.verify, w.local} }

// name is the service's DNS name.
func (w *testWorld) name() string { return ServiceName(w.svc.Service, DefaultZone) }

// ask queries s for the service's records of type qt, bounded by 15 s.
func (w *testWorld) ask(t *testing.T, s *Server, qt QType) Answer {
	t.Helper()
	return w.askName(t, s, w.name(), qt)
}

// alivePorts returns the record ports of the instances not crashed, sorted.
func (w *testWorld) alivePorts() []uint16 {
	var out []uint16
	for _, in := range w.insts.List {
		if !in.Crashed() {
			out = append(out, uint16(in.HTTPPort))
		}
	}
	slices.Sort(out)
	return out
}

// checkNothingLeft closes the supervisor and checks that no process,
// listener or temp dir of the test is left.
func (w *testWorld) checkNothingLeft(t *testing.T, pids []int) {
	w.insts.Close()
	w.etcd.Close()
	if err := w.sup.Close(); err != nil {
		t.Errorf("closing the supervisor: %v", err)
	}
	for _, pid := range pids {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			t.Errorf("process %d is left after the test", pid)
		}
	}
	for p := testPortBase; p < testPortBase+20; p++ {
		if err := ports.CheckFree(p); err != nil {
			t.Errorf("port %d is still taken after the test: %v", p, err)
		}
	}
	if _, err := os.Stat(w.dir); !os.IsNotExist(err) {
		t.Errorf("temp dir %s is left after the test (%v)", w.dir, err)
	}
}
