package eurekamodel

import (
	"context"
	"os"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/ports"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// testPortBase keeps this package's servers apart from other packages' tests.
const testPortBase = 10000

type testCluster struct {
	scale   Scale
	cfg     Config
	alloc   *ports.Allocator
	servers []*ServerProc
	urls    []string
}

func startTestCluster(t *testing.T, factor float64, base int, edit ...func(*Config)) *testCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts server processes")
	}
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close() })
	dir := t.TempDir()
	tc := &testCluster{scale: NewScale(time.Now(), factor), cfg: DefaultConfig(), alloc: ports.New(base, "--port-base")}
	for _, e := range edit {
		e(&tc.cfg)
	}
	tc.servers, err = StartCluster(context.Background(), sup, tc.alloc, ClusterSpec{Size: 3, Config: tc.cfg,
		Scale: tc.scale, Seed: 1, LogDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tc.servers {
		tc.urls = append(tc.urls, s.URL())
	}
	return tc
}

func (tc *testCluster) client(id string, fetch bool, order ...int) *Client {
	var urls []string
	for _, i := range order {
		urls = append(urls, tc.urls[i])
	}
	cfg := ClientConfig{Servers: urls, Config: tc.cfg, Scale: tc.scale, Fetch: fetch,
		HeartbeatPhase: tc.cfg.RenewInterval, FetchPhase: tc.cfg.FetchInterval}
	if id != "" {
		cfg.Instance = Instance{App: "WORKER", ID: id, Addr: "127.0.0.1:1"}
	}
	return NewClient(cfg)
}

// TestReplicationReachesPeersAfterTheBatchDelay: the register reaches s1
// with the client's request, within one late wake-up of real time
// (clock.SchedSlack, × the scale in model time); it reaches each peer in a
// batch released once it has waited the batching delay, within one more
// late wake-up.
func TestReplicationReachesPeersAfterTheBatchDelay(t *testing.T) {
	tc := startTestCluster(t, 10, testPortBase)
	c := tc.client("r1", false, 0, 1, 2)
	start := tc.scale.At(time.Now())
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	time.Sleep(tc.scale.Real(2 * time.Second))
	for i, s := range tc.servers {
		h, err := s.History()
		if err != nil {
			t.Fatal(err)
		}
		var reg *Event
		for _, e := range h.Events {
			if e.Kind == EventRegister && e.ID == "WORKER/r1" {
				reg = &e
				break
			}
		}
		if reg == nil {
			t.Fatalf("%s never got r1", s.Name())
		}
		lag, slack := reg.At-start, tc.scale.Model(clock.SchedSlack)
		if i == 0 && (reg.Replicated || lag > slack) {
			t.Errorf("%s: direct register %+v, %s after the call (want ≤ %s)", s.Name(), reg, lag, slack)
		}
		if lo, hi := tc.cfg.BatchDelay, tc.cfg.BatchDelay+slack; i > 0 && (!reg.Replicated || lag < lo || lag > hi) {
			t.Errorf("%s: replicated register %+v, %s after the call, want %s–%s", s.Name(), reg, lag, lo, hi)
		}
	}
}

func TestClientFailsOverWhenItsServerIsKilled(t *testing.T) {
	tc := startTestCluster(t, 10, testPortBase+10)
	w := tc.client("w1", false, 0, 1, 2)
	sched := tc.client("", true, 0, 1, 2)
	for _, c := range []*Client{w, sched} {
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer c.Stop()
	}
	time.Sleep(tc.scale.Real(2 * time.Second)) // w1 replicated to s2 and s3
	if sched.QueryServer() != tc.urls[0] {
		t.Fatalf("sticky to %q, want %q", sched.QueryServer(), tc.urls[0])
	}
	tc.servers[0].Kill()
	ev := sched.Fetch(context.Background())
	if !ev.OK || sched.QueryServer() != tc.urls[1] || len(ev.Attempts) != 3 {
		t.Fatalf("fetch after the kill: %+v, sticky %q; want ok on the 3rd attempt, on s2", ev, sched.QueryServer())
	}
	if b := w.Heartbeat(context.Background()); !b.OK {
		t.Fatalf("heartbeat after the kill: %+v", b)
	}
	if got := sched.Instances(); len(got) != 1 || got[0].ID != "w1" {
		t.Fatalf("registry after failover: %+v", got)
	}
}

func TestHeartbeatReRegistersOn404AndStepIsRecorded(t *testing.T) {
	tc := startTestCluster(t, 10, testPortBase+20)
	w := tc.client("w1", false, 0, 1, 2)
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Let replication settle, then cancel on every server directly (replicated).
	time.Sleep(tc.scale.Real(2 * time.Second))
	for _, s := range tc.servers {
		c := tc.client("", false, 0)
		_, err := c.send(context.Background(), "DELETE", s.URL()+AppsPath+"/WORKER/w1", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	b := w.Heartbeat(context.Background())
	if !b.OK || !b.Reregistered {
		t.Fatalf("heartbeat on an unknown lease: %+v, want re-registered", b)
	}
	if err := tc.servers[1].Step(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	st, err := tc.servers[1].Stats()
	if err != nil || st.Skew != 2*time.Minute {
		t.Fatalf("stats after step: %+v, %v", st, err)
	}
	if st, _ := tc.servers[0].Stats(); len(st.Peers) != 2 || st.Peers[0].Batches == 0 {
		t.Fatalf("replication counters of s1: %+v", st.Peers)
	}
}

func TestFailedFetchKeepsTheRegistryAndEmptyReplacesIt(t *testing.T) {
	tc := startTestCluster(t, 10, testPortBase+30, func(c *Config) { c.ResponseCache = false })
	w := tc.client("w1", false, 0, 1, 2)
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.Stop()
	time.Sleep(tc.scale.Real(2 * time.Second))
	cfg := ClientConfig{Servers: tc.urls, Config: tc.cfg, Scale: tc.scale, Link: &Link{}}
	c := NewClient(cfg)
	if ev := c.Fetch(context.Background()); !ev.OK || len(c.Instances()) != 1 {
		t.Fatalf("first fetch %+v", ev)
	}
	cfg.Link.Block()
	start := time.Now()
	ev := c.Fetch(context.Background())
	took := time.Since(start)
	connect := tc.scale.RealNet(tc.cfg.ConnectTimeout)
	if ev.OK || len(ev.Attempts) != 3 || len(c.Instances()) != 1 {
		t.Fatalf("partitioned fetch %+v kept %d instances; want 3 failed attempts and the old registry", ev, len(c.Instances()))
	}
	// Each of the 3 attempts waits out its connect timeout on a cut link (one
	// timer each, which may wake one late wake-up after it).
	if lo, hi := 3*connect, 3*(connect+clock.SchedSlack); took < lo || took > hi {
		t.Errorf("partitioned fetch took %s, want 3 connect timeouts (%s–%s)", took, lo, hi)
	}
	cfg.Link.Unblock()
	for _, s := range tc.servers { // cancel everywhere (each cancel also replicates)
		if _, err := c.send(context.Background(), "DELETE", s.URL()+AppsPath+"/WORKER/w1", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if ev := c.Fetch(context.Background()); !ev.OK || len(c.Instances()) != 0 {
		t.Fatalf("empty fetch %+v left %d instances; an empty answer must replace the registry", ev, len(c.Instances()))
	}
}
