package fault

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/netns"
	"sdchaos/netns/netnstest"
	"sdchaos/ports"
)

// TestMain dispatches the hidden sub-commands (etcd members, the private
// namespace's entry) that the integration tests re-execute.
func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// startPrivateCluster starts 3 members on 198.18.0.1–3 inside the test's
// private namespace, and the run's packet filter.
func startPrivateCluster(t *testing.T) (*cluster.Cluster, *netns.Filter) {
	t.Helper()
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close() })
	cfg := cluster.DefaultConfig()
	cfg.Hosts = netns.MemberHosts(cfg.Size)
	c, err := cluster.Start(context.Background(), sup, ports.New(9150, "--port-base"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := netns.OpenFilter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return c, f
}

// TestDropPeerPacketsCutsAFollowerOff drops every packet between a follower
// and its peers: the follower loses its leader within its election timeout
// (randomized in [election, 2 × election) after the last heartbeat it
// received, at most one tick before the drop), serves only stale
// serializable reads, while the majority keeps its leader (PreVote and
// CheckQuorum: the cut-off member cannot depose it); after the heal the
// follower follows the same leader again and catches up; no rule is left.
func TestDropPeerPacketsCutsAFollowerOff(t *testing.T) {
	if !netnstest.Enter(t) {
		return
	}
	c, f := startPrivateCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	leader, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := c.Node((leader.Index + 1) % c.Size())
	cli, err := x.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	fault := &DropPeerPackets{Filter: f, Members: c.Nodes(), Node: x, Loss: 1}
	if err := fault.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	lost := waitNoLeader(ctx, t, x, cli)
	cfg := cluster.DefaultConfig()
	lo := time.Duration(cfg.ElectionMs-cfg.TickMs) * time.Millisecond
	hi := time.Duration(2*cfg.ElectionMs)*time.Millisecond + 150*time.Millisecond // + polling
	if lost < lo || lost > hi {
		t.Errorf("%s lost its leader %s after the drop, want %s–%s", x.Name, lost, lo, hi)
	}
	t.Logf("%s (follower of %s) lost its leader %s after a 100 %% two-way peer drop", x.Name, leader.Name, lost)
	checkStaleDuringCut(ctx, t, c, leader, x, cli)
	if err := fault.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	if k := fault.Counts(); k.Selected == 0 || k.Acted != k.Selected {
		t.Errorf("counts %+v: want every selected packet dropped", k)
	}
	t.Logf("dropped %d packets", fault.Counts().Acted)
	checkRejoined(ctx, t, c, leader, x, cli)
	name := f.Table()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if tables, err := netns.Tables(); err != nil || slices.Contains(tables, name) {
		t.Errorf("tables after Close: %v, %v (want none named %s)", tables, err, name)
	}
}

// waitNoLeader polls x until it reports no leader, and returns how long it took.
func waitNoLeader(ctx context.Context, t *testing.T, x *cluster.Node, cli *clientv3.Client) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		if s := x.Status(ctx, cli, 200*time.Millisecond); s.Err == nil && s.Leader == 0 {
			return time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s still has a leader 10 s after the drop", x.Name)
	return 0
}

// checkStaleDuringCut writes on the majority and reads on x: the majority
// still has the same leader; x's serializable read misses the write.
func checkStaleDuringCut(ctx context.Context, t *testing.T, c *cluster.Cluster, leader, x *cluster.Node, cli *clientv3.Client) {
	t.Helper()
	var majority []*cluster.Node
	for _, n := range c.Nodes() {
		if n != x {
			majority = append(majority, n)
		}
	}
	if l, err := c.WaitLeader(ctx, majority...); err != nil || l != leader {
		t.Errorf("majority's leader during the cut: %v, %v; want %s unchanged", l, err, leader.Name)
	}
	maj, err := cluster.NewClient(cluster.ClientURLs(majority)...)
	if err != nil {
		t.Fatal(err)
	}
	defer maj.Close()
	if _, err := maj.Put(ctx, "/during-drop", "x"); err != nil {
		t.Fatalf("put on the majority: %v", err)
	}
	resp, err := cli.Get(ctx, "/during-drop", clientv3.WithSerializable())
	if err != nil || len(resp.Kvs) != 0 {
		t.Errorf("%s: serializable read = %v, %v; want a stale answer without the key", x.Name, resp, err)
	}
}

// checkRejoined waits until x follows the same leader and has the write.
func checkRejoined(ctx context.Context, t *testing.T, c *cluster.Cluster, leader, x *cluster.Node, cli *clientv3.Client) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		s := x.Status(ctx, cli, 200*time.Millisecond)
		resp, err := cli.Get(ctx, "/during-drop", clientv3.WithSerializable())
		if s.Err == nil && s.Leader != 0 && err == nil && len(resp.Kvs) == 1 {
			if l, err := c.WaitLeader(ctx); err != nil || l != leader {
				t.Errorf("leader after the heal: %v, %v; want %s unchanged", l, err, leader.Name)
			}
			t.Logf("%s rejoined %s and caught up %s after the heal", x.Name, leader.Name, time.Since(start))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("%s did not rejoin within 10 s of the heal", x.Name)
}
