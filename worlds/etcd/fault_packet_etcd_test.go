package etcd

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/childproc"
	"sdchaos/clock"
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
// and its peers: the follower loses its leader within the band raft's
// election timer gives (followerLossBand), serves only stale serializable
// reads, while the majority keeps its leader (PreVote and CheckQuorum: the
// cut-off member cannot depose it); after the heal the follower follows
// the same leader again and catches up; no rule is left.
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
	start := time.Now() // the drop takes effect within Inject: measured from no later than the drop
	if err := fault.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	injectTook := time.Since(start)
	lost := waitNoLeader(ctx, t, x, cli, start)
	if lo, hi := followerLossBand(cluster.DefaultConfig(), injectTook); lost < lo || lost > hi {
		t.Errorf("%s lost its leader %s after the drop, want %s–%s (Inject took %s)", x.Name, lost, lo, hi, injectTook)
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

// The poll of waitNoLeader: a status call bounded by statusTimeout, then
// pollSleep before the next one.
const (
	statusTimeout = 200 * time.Millisecond
	pollSleep     = 20 * time.Millisecond
)

// followerLossBand is when a follower whose every packet to and from its
// peers is dropped reports no leader, measured from just before the drop
// was installed; injectTook is how long installing it took. The rules
// (etcd server v3.7.2, raft v3.7.0):
//   - etcd ticks raft every heartbeat interval (TickMs) from a
//     time.Ticker (etcdserver/raft.go, newRaftNode) and gives raft
//     HeartbeatTick 1 and ElectionTick ElectionMs/TickMs
//     (etcdserver/bootstrap.go, raftConfig): the leader sends a heartbeat
//     at every tick (raft.go, tickHeartbeat), so the follower's last one
//     arrived at most one tick before the drop;
//   - that heartbeat set its electionElapsed to 0 (raft.go, stepFollower,
//     MsgHeartbeat); its own ticker runs at an arbitrary phase, so its
//     next tick comes within (0, 1] tick;
//   - at the tick where electionElapsed reaches randomizedElectionTimeout,
//     drawn in [election, 2 × election) ticks (raft.go,
//     resetRandomizedElectionTimeout; pastElectionTimeout), it becomes a
//     pre-candidate and forgets its leader (becomePreCandidate: lead =
//     None; Status reports leader 0).
//
// So it loses its leader between (election − 2 ticks) and (2 × election −
// 1 tick) after the drop. The low end allows one late wake-up on each side
// (clock.SchedSlack each): the leader's tick sending the last heartbeat
// late, and the follower's raft loop stalled while ticks queue (raft's
// node buffers 128 ticks and may run them right after the heartbeat). The
// high end adds the time Inject took (the drop took effect within it), a
// late wake-up of the follower's ticker, and the poll: the status call in
// flight when the leader was lost (up to statusTimeout), the sleep, and the
// call that sees no leader (up to statusTimeout).
func followerLossBand(cfg cluster.Config, injectTook time.Duration) (lo, hi time.Duration) {
	tick, election := time.Duration(cfg.TickMs)*time.Millisecond, time.Duration(cfg.ElectionMs)*time.Millisecond
	lo = election - 2*tick - 2*clock.SchedSlack
	hi = 2*election - tick + injectTook + clock.SchedSlack + statusTimeout + pollSleep + statusTimeout
	return lo, hi
}

// waitNoLeader polls x until it reports no leader, and returns how long
// after start that was.
func waitNoLeader(ctx context.Context, t *testing.T, x *cluster.Node, cli *clientv3.Client, start time.Time) time.Duration {
	t.Helper()
	for time.Since(start) < 10*time.Second {
		if s := x.Status(ctx, cli, statusTimeout); s.Err == nil && s.Leader == 0 {
			return time.Since(start)
		}
		time.Sleep(pollSleep)
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
