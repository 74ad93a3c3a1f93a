package nacos

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// Cluster test ports: main ports 26600…26605 (JRaft 25600…, gRPC 27600…), clear of every other
// package's tests (eurekareal's and the etcd scenarios' once held 9600…); the instance's
// endpoint on 12680, below the other tests' client ports (12700…).
const clusterPortBase = 26600

// startCluster starts a cluster with spec edited by edit, skipping the test without Java or
// Maven, and logs what the start cost.
func startCluster(t *testing.T, sup *childproc.Supervisor, base int, edit func(*ClusterSpec)) *Cluster {
	t.Helper()
	spec := DefaultClusterSpec()
	spec.Member.Logf = t.Logf
	spec.Member.KeepHome = os.Getenv("SDCHAOS_NACOS_KEEP") != ""
	edit(&spec)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c, err := StartCluster(ctx, sup, ports.New(base, "clusterPortBase"), spec)
	if jvm.Missing(err) {
		t.Skipf("no JVM tool here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	logStart(t, c)
	return c
}

// logStart logs the start's times and every member's RSS.
func logStart(t *testing.T, c *Cluster) {
	t.Helper()
	tm := c.Timing()
	t.Logf("cluster serving %.1f s after the first launch (prepare %.1f s); members ready after %v; JVM CPU time then %v",
		tm.Serving.Seconds(), tm.Prepare.Seconds(), roundAll(tm.Members), roundAll(tm.CPU))
	for _, m := range c.Members() {
		rss, _ := m.RSS()
		t.Logf("%s %s pid %d RSS %d MiB", m.Name(), m.Address(), m.Pid(), rss>>20)
	}
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(100 * time.Millisecond)
	}
	return out
}

// TestClusterReplicatesRestartsAndLeavesNothing starts three members, registers an instance
// through member 1, sees all three hold it (Distro copies the client to the members that do not
// hold its connection), restarts member 3 on its data dir and sees it rejoin (every member UP
// in every view, naming UP) and hold the instance again (its Distro snapshot load),
// then closes the supervisor: no JVM, port or dir is left.
func TestClusterReplicatesRestartsAndLeavesNothing(t *testing.T) {
	needJVM(t)
	sup := newSup(t)
	c := startCluster(t, sup, clusterPortBase, func(*ClusterSpec) {})
	checkSettings(t, c.Member(0))
	ep, err := StartEndpoint(ports.New(12680, "instances"), "instance a")
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	r, err := Register(JavaDefaults(c.Member(0).Addr(), t.TempDir()), "svc", ep)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, m := range c.Members() {
		t.Logf("%s holds the instance %s after the registration", m.Name(), waitHeld(t, c, m, ep.Port(), 60*time.Second))
	}
	checkOwner(t, c, c.Member(0).Address())
	pids, homes := memberPids(c), memberHomes(c)

	d, err := c.Member(2).Restart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := c.AwaitReady(context.Background(), 3*time.Minute); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s restarted: ready %.1f s after its launch, the cluster whole again %.1f s later", c.Member(2).Name(), d.Seconds(), time.Since(t0).Seconds())
	t.Logf("%s holds the instance %s after it rejoined", c.Member(2).Name(), waitHeld(t, c, c.Member(2), ep.Port(), 60*time.Second))
	pids = append(pids, c.Member(2).Pid())

	r.Close()
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	checkNothingLeft(t, c, pids, homes)
}

// checkSettings checks, in the member's own state API, that the cluster's settings took effect.
func checkSettings(t *testing.T, m *Member) {
	t.Helper()
	st, err := m.ServerState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"startup_mode": "cluster", "function_mode": "naming", "data_load_retryDelayMs": "1000"} {
		if st[k] != want {
			t.Errorf("%s reports %s = %q, want %q", m.Name(), k, st[k], want)
		}
	}
}

// waitHeld waits until m holds the one instance of svc in its naming index (Publishers: its
// own clients and Distro's copies), then logs what m's admin instance list says. That list is
// not waited for: on a restarted member it said "not found" while the member held the instance
// (CatalogServiceV2Impl.listInstances checks ServiceStorage.getClusters, a cache only a push
// computation fills, before it computes anything; docs/nacos-real.md).
func waitHeld(t *testing.T, c *Cluster, m *Member, port int, d time.Duration) time.Duration {
	t.Helper()
	t0 := time.Now()
	for {
		pubs, err := m.Publishers(context.Background(), "svc")
		if err == nil && len(pubs) == 1 && pubs[0].Port == port {
			held := time.Since(t0)
			list, lerr := m.Server().Instances(context.Background(), "svc")
			t.Logf("%s's admin instance list then: %d instance(s) (%v)", m.Name(), len(list), lerr)
			return held
		}
		if time.Since(t0) > d {
			for _, x := range c.Members() {
				n, nerr := x.Naming(context.Background())
				t.Logf("%s: naming %+v (%v)", x.Name(), n, nerr)
			}
			t.Fatalf("%s holds %+v (%v) after %s, want the one instance on port %d", m.Name(), pubs, err, d, port)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOwner checks that the instance's client is held by want (the member it registered
// through) and that DistroMapper answers for an ip:port client with a member of the cluster.
func checkOwner(t *testing.T, c *Cluster, want string) {
	t.Helper()
	owners, err := c.Owners(context.Background(), "svc")
	if err != nil {
		t.Fatal(err)
	}
	if len(owners) != 1 || owners[0].Member != want {
		t.Errorf("owners %+v, want one held by %s", owners, want)
	}
	resp, err := c.Member(1).ResponsibleFor(context.Background(), "127.0.0.1", 12680)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Addrs(), resp) {
		t.Errorf("DistroMapper's member %q is not one of %v", resp, c.Addrs())
	}
	t.Logf("instance owned by %s; DistroMapper would give 127.0.0.1:12680 to %s", owners[0].Member, resp)
}

func memberPids(c *Cluster) []int {
	var out []int
	for _, m := range c.Members() {
		out = append(out, m.Pid())
	}
	return out
}

func memberHomes(c *Cluster) []string {
	var out []string
	for _, m := range c.Members() {
		out = append(out, m.Home())
	}
	return out
}

// checkNothingLeft checks that every JVM that ran is gone, every member port free and every
// home removed.
func checkNothingLeft(t *testing.T, c *Cluster, pids []int, homes []string) {
	t.Helper()
	for _, pid := range pids {
		waitFor(t, "the JVMs to be gone", 10*time.Second, func() bool { return !childproc.Alive(pid) })
	}
	for _, m := range c.Members() {
		for _, p := range m.Ports().All() {
			if err := checkFreeOn(m.Host(), p); err != nil {
				t.Errorf("%s: %v after Close", m.Name(), err)
			}
		}
	}
	for _, h := range homes {
		if _, err := os.Stat(h); !os.IsNotExist(err) {
			t.Errorf("nacos.home %s left after Close: %v", h, err)
		}
	}
}
