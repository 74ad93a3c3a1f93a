package cluster

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// testPortBase keeps this package's ports apart from other packages' tests,
// which go test runs in parallel.
const testPortBase = 9400

func startCluster(t *testing.T) (*Cluster, *childproc.Supervisor) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real etcd cluster")
	}
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close() })
	c, err := Start(context.Background(), sup, ports.New(testPortBase, "--port-base"), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c, sup
}

func TestKillLeaderRestartPause(t *testing.T) {
	c, sup := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(ctx, "/k", "v"); err != nil {
		t.Fatalf("put on a healthy cluster: %v", err)
	}
	leader, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = leader.Kill()
	if leader.Running() {
		t.Fatal("killed leader still running")
	}
	next, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatalf("no new leader after killing %s: %v", leader.Name, err)
	}
	if next == leader {
		t.Fatal("dead member reported as leader")
	}
	if err := leader.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatalf("cluster not healthy after restart: %v", err)
	}
	// The restarted member kept its data.
	mc, _ := leader.Client()
	defer mc.Close()
	resp, err := mc.Get(ctx, "/k")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("restarted member lost /k: %v %v", resp, err)
	}
	follower := c.Node((next.Index + 1) % 3)
	if err := follower.Pause(); err != nil {
		t.Fatal(err)
	}
	sctx, scancel := context.WithTimeout(ctx, 500*time.Millisecond)
	st := follower.Status(sctx, cli, 300*time.Millisecond)
	scancel()
	if st.Err == nil {
		t.Error("a paused member answered")
	}
	if err := follower.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatalf("not healthy after resume: %v", err)
	}
	id, err := follower.Control("id")
	if err != nil || id == "" {
		t.Fatalf("control id: %q %v", id, err)
	}
	pids := []int{}
	for _, n := range c.Nodes() {
		pids = append(pids, n.Child().Pid())
	}
	_ = c.Node(0).Pause() // a frozen member must die on Close too
	dir := c.Dir
	sup.Close()
	for _, p := range pids {
		if childproc.Alive(p) {
			t.Errorf("pid %d alive after Close", p)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("data dir %s left behind", dir)
	}
	for p := testPortBase; p < testPortBase+6; p++ {
		if err := ports.CheckFree(p); err != nil {
			t.Errorf("port %d still in use: %v", p, err)
		}
	}
}

func TestPortInUseIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("binds real ports")
	}
	l, err := listen(testPortBase + 20)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sup, _ := childproc.NewSupervisor(nil)
	defer sup.Close()
	_, err = Start(context.Background(), sup, ports.New(testPortBase+20, "--port-base"), DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(testPortBase+20)) {
		t.Fatalf("err = %v, want one naming port %d", err, testPortBase+20)
	}
}
