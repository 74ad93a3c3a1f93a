package dns

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"

	"sdchaos/experiment"
)

// TestCoreDNSOverEtcd runs CoreDNS over a real 3-member etcd with three
// registered instances: the answers list them, a crashed instance's record
// goes within its band, and after a quorum loss the server without a cache
// answers SERVFAIL while serve_stale serves the stale answer.
func TestCoreDNSOverEtcd(t *testing.T) {
	needReal(t)
	w := startTestWorld(t, newSup(t))
	var pids []int
	for _, s := range w.servers() {
		pids = append(pids, s.Pid())
	}
	w.checkLogNamesVersion(t)
	w.checkAnswers(t)
	w.checkClients(t)
	w.checkCrash(t)
	w.checkQuorumLoss(t)
	w.checkHeal(t)
	w.checkUpstreamKilled(t)
	pids = append(pids, w.stale.Pid(), w.plain.Pid())
	w.checkNothingLeft(t, pids)
}

// checkAnswers: every server lists the three instances: three A records
// (each instance on its own address) and three SRV ports.
func (w *testWorld) checkAnswers(t *testing.T) {
	want := w.alivePorts()
	var hosts []netip.Addr
	for _, in := range w.insts.List {
		hosts = append(hosts, netip.MustParseAddr(in.Host))
	}
	slices.SortFunc(hosts, netip.Addr.Compare)
	for _, s := range w.servers() {
		a := w.ask(t, s, TypeA)
		if a.Rcode != NoError || !slices.Equal(a.Addrs, hosts) {
			t.Errorf("CoreDNS %s: A %s = %s %v, want NOERROR %v", s.Name, w.name(), a.Rcode, a.Addrs, hosts)
		}
		srv := w.ask(t, s, TypeSRV)
		if srv.Rcode != NoError || !slices.Equal(srv.Ports, want) {
			t.Errorf("CoreDNS %s: SRV %s = %s %v, want NOERROR %v", s.Name, w.name(), srv.Rcode, srv.Ports, want)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		n, err := Listed(ctx, s.Addr(), w.name())
		cancel()
		if n != len(want) || err != nil {
			t.Errorf("CoreDNS %s: Listed = %d, %v; want %d", s.Name, n, err, len(want))
		}
	}
	// The record's ttl (5 s) is under the lease clamp's floor (30 s): the answer carries it.
	wantTTL := AnswerTTL(w.svc.TTL, w.svc.TTL, DefaultMinLeaseTTL, DefaultMaxLeaseTTL)
	if a := w.ask(t, w.plain, TypeSRV); a.TTL != wantTTL {
		t.Errorf("CoreDNS plain: SRV TTL %s, want %s (AnswerTTL)", a.TTL, wantTTL)
	}
}

// checkClients: Go's resolver and gRPC's dns resolver resolve through the
// servers.
func (w *testWorld) checkClients(t *testing.T) {
	g := NewGoResolver(ResolverConfig{Name: "go", Server: w.plain.Addr(), Host: w.name(), QType: TypeSRV, Timeout: 10 * time.Second})
	got, err := g.Resolve(context.Background())
	if err != nil || len(got) != len(w.insts.List) {
		t.Errorf("Go resolver through plain: %v, %v; want the %d instances' ports", got, err, len(w.insts.List))
	}
	j1 := w.insts.List[0]
	gc, err := NewGRPCCaller(GRPCConfig{Name: "grpc", Server: w.local.Addr(), Host: w.name(), Port: j1.GRPCPort, CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer gc.Close()
	if err := gc.Prime(context.Background()); err != nil {
		t.Errorf("gRPC's dns resolver through local: %v", err)
	}
	if got := peersOf(gc, len(w.insts.List)); len(got) != len(w.insts.List) {
		t.Errorf("gRPC's round_robin reached %v, want each of the %d instances", got, len(w.insts.List))
	}
}

// peersOf calls the health service through gc until n distinct peers have
// answered or 5 s have passed, and returns the peers' hosts.
func peersOf(gc *GRPCCaller, n int) []string {
	seen := map[string]bool{}
	hc := healthpb.NewHealthClient(gc.conn)
	for end := time.Now().Add(5 * time.Second); len(seen) < n && time.Now().Before(end); {
		var p peer.Peer
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Peer(&p)); err == nil && p.Addr != nil {
			host, _, _ := net.SplitHostPort(p.Addr.String())
			seen[host] = true
		}
		cancel()
	}
	return slices.Sorted(maps.Keys(seen))
}

// checkCrash: a crashed instance's record goes after its lease, from the
// server without a cache and from the cached one, each within its band.
func (w *testWorld) checkCrash(t *testing.T) {
	crashed := w.insts.List[2]
	crashed.Crash()
	t0 := time.Now()
	want := w.alivePorts()
	answerTTL := AnswerTTL(w.svc.TTL, w.svc.TTL, DefaultMinLeaseTTL, DefaultMaxLeaseTTL)
	bands := map[*Server]experiment.Band{
		w.plain: RecordGoneAfterCrash(w.svc.TTL, w.svc.Renew, 0),
	}
	for _, s := range []*Server{w.stale, w.verify, w.local} {
		bands[s] = RecordGoneAfterCrash(w.svc.TTL, w.svc.Renew, CachedFor(answerTTL, 0))
	}
	gone := map[*Server]time.Duration{}
	deadline := t0.Add(time.Duration(bands[w.stale].Hi*float64(time.Second)) + 2*time.Second)
	for len(gone) < len(bands) && time.Now().Before(deadline) {
		for s := range bands {
			if _, done := gone[s]; !done && slices.Equal(w.ask(t, s, TypeSRV).Ports, want) {
				gone[s] = time.Since(t0)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	for s, b := range bands {
		got, ok := gone[s]
		t.Logf("CoreDNS %s: %s's record gone %.1f s after the crash (band [%.1f, %.1f] s)", s.Name, crashed.ID, got.Seconds(), b.Lo, b.Hi)
		if !ok || got.Seconds() < b.Lo || got.Seconds() > b.Hi {
			t.Errorf("CoreDNS %s: record gone after %s (seen: %v), want within [%.1f, %.1f] s: %s", s.Name, got, ok, b.Lo, b.Hi, b.Basis)
		}
	}
}

// checkLogNamesVersion: the server's log names CoreDNS's version and its
// plugins.
func (w *testWorld) checkLogNamesVersion(t *testing.T) {
	b, err := os.ReadFile(w.plain.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Version()
	want := fmt.Sprintf("CoreDNS %s (from ", v)
	if !strings.Contains(string(b), want) || !strings.Contains(string(b), fmt.Sprint(Plugins)) {
		t.Errorf("CoreDNS plain's log does not name %q and %v:\n%s", want, Plugins, b)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	t.Logf("CoreDNS plain's log: %s", first)
}
