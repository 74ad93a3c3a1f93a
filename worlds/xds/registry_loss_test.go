package xds

import (
	"context"
	"testing"
	"time"

	"sdchaos/cluster"
	"sdchaos/internal/machinelock"
)

// TestRegistryQuorumLossByWatchFailPolicy kills a majority of the etcd
// members (the leader among them) under two control planes, one keeping
// its last snapshot and one clearing the endpoints, each with its own
// client: the first client keeps serving every instance
// (ServesWhileRegistryLost(KeepLast)), the second fails every call once its
// control plane has noticed (within Poll + ReadTimeout); both serve again
// once the members are back.
func TestRegistryQuorumLossByWatchFailPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd cluster, two control planes and two xDS clients: skipped under -short")
	}
	defer machinelock.Take(t)() // timed bands: one timed run on the machine at a time
	w := startRegistry(t, testPortBase+50)
	keep, clear := DefaultControlPlaneSettings("api"), DefaultControlPlaneSettings("api")
	clear.OnWatchFail = ClearEndpoints
	cps := map[WatchFailPolicy]*ControlPlane{
		KeepLast:       w.startControlPlane(t, "xds-cp-keep", keep),
		ClearEndpoints: w.startControlPlane(t, "xds-cp-clear", clear),
	}
	clients := map[WatchFailPolicy]*Client{
		KeepLast:       w.startClient(t, "xds-client-keep", cps[KeepLast], false),
		ClearEndpoints: w.startClient(t, "xds-client-clear", cps[ClearEndpoints], false),
	}
	all := w.addrs(0, 1, 2)
	waitAll(t, []*Client{clients[KeepLast], clients[ClearEndpoints]}, all, 30*time.Second)

	killed := killMajority(t, w.etcd)
	// A control plane notices within one poll and one read deadline; its
	// clients within a push on a live stream (allow a second).
	noticed := killed.Add(RegistryLossNoticedWithin(keep) + time.Second)
	time.Sleep(time.Until(noticed.Add(5*time.Second + testCallTimeout)))
	from, to := noticed, noticed.Add(5*time.Second)
	for p, c := range clients {
		err := fails(c, from, to)
		if ServesWhileRegistryLost(p) {
			err = serves(c, from, to, all)
		}
		tl := TallyOf(c.Calls(from, to))
		t.Logf("%s (%s) with etcd's quorum lost: %d ok over %v, %d failed (%s)", c.Spec.Name, p, tl.OK, tl.TargetList(), tl.Fail, firstErr(c, from, to))
		if err != nil {
			t.Errorf("quorum lost, policy %s: %v", p, err)
		}
		if st, err := cps[p].Status(); err != nil || st.RegistryOK {
			t.Errorf("control plane %s: status %+v (%v), want the registry lost", cps[p].Name, st, err)
		}
	}
	first, ok := firstFailure(clients[ClearEndpoints], killed)
	if !ok || first.Sub(killed) > RegistryLossNoticedWithin(clear)+time.Second {
		t.Errorf("%s: first failed call %.1f s after the kill (found %v), want within %s + 1 s", clients[ClearEndpoints].Spec.Name,
			first.Sub(killed).Seconds(), ok, RegistryLossNoticedWithin(clear))
	}
	t.Logf("%s: first failed call %.1f s after the kill", clients[ClearEndpoints].Spec.Name, first.Sub(killed).Seconds())
	healed := restartAll(t, w.etcd)
	back := waitAll(t, []*Client{clients[KeepLast], clients[ClearEndpoints]}, all, 30*time.Second)
	t.Logf("both clients serving every instance within %.1f s of the members' restart", back.Add(testCallTimeout).Sub(healed).Seconds())
}

// firstFailure returns when the first failed call after t0 started.
func firstFailure(c *Client, t0 time.Time) (time.Time, bool) {
	for _, l := range c.Calls(t0, time.Now()) {
		if l.Outcome != OutcomeOK {
			return l.Start, true
		}
	}
	return time.Time{}, false
}

// waitAll waits until each client had a second of calls, all ok over want.
func waitAll(t *testing.T, cs []*Client, want []string, within time.Duration) time.Time {
	t.Helper()
	w := &testWorld{plain: cs[0], ignores: cs[1]}
	return w.waitServing(t, want, within)
}

// killMajority kills the leader and one follower and returns when.
func killMajority(t *testing.T, c *cluster.Cluster) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leader, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	victims := []*cluster.Node{leader}
	for _, n := range c.Nodes() {
		if n != leader && len(victims) < 2 {
			victims = append(victims, n)
		}
	}
	at := time.Now()
	for _, n := range victims {
		if err := n.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("killed etcd %s (leader) and %s", victims[0].Name, victims[1].Name)
	return at
}

// restartAll restarts every killed member and waits for a healthy cluster.
func restartAll(t *testing.T, c *cluster.Cluster) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	at := time.Now()
	for _, n := range c.Nodes() {
		if !n.Running() {
			if err := n.Restart(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	return at
}
