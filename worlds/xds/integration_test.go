package xds

import (
	"context"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/internal/machinelock"
	"sdchaos/ports"
)

// TestControlPlaneOutageAndEmptyRestart runs the world's real parts: the
// clients keep serving while the control plane is killed (A57), route
// around an instance that crashes meanwhile, and meet a control plane
// restarted with an empty snapshot as A53 says: the client without
// ignore_resource_deletion loses the listener and cluster, the one with it
// keeps serving. Then a partial snapshot (no endpoints) fails both, and a
// control plane that answers nothing (no snapshot) for longer than the
// 15 s watch expiry leaves both serving: received resources start no timer.
func TestControlPlaneOutageAndEmptyRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd cluster, a control plane and two xDS clients: skipped under -short")
	}
	defer machinelock.Take(t)() // timed bands: one timed run on the machine at a time
	w := startWorld(t)
	all := w.addrs(0, 1, 2)
	t0 := time.Now()
	w.waitServing(t, all, 30*time.Second)
	t.Logf("clients serving over all three instances within %.1f s of their start", time.Since(t0).Seconds())

	down := w.outage(t, all)
	w.emptyRestart(t, down)
	w.quickRestart(t, PartialSnapshot, 3*time.Second)
	w.quickRestart(t, NoSnapshot, WatchExpiry+3*time.Second)
	w.closeAndCheckNothingLeft(t)
}

// outage kills the control plane for 10 s, crashing instance j3 4 s in,
// and returns how long it was down.
func (w *testWorld) outage(t *testing.T, all []string) time.Duration {
	t.Helper()
	killed := time.Now()
	w.cp.Kill()
	time.Sleep(4 * time.Second)
	crashed := time.Now()
	w.group.Instances[2].Crash()
	time.Sleep(6 * time.Second)
	if err := w.allServe(killed, crashed.Add(-testCallTimeout), all); err != nil {
		t.Errorf("A57: with the control plane gone, before the crash: %v", err)
	}
	if err := w.allServe(crashed.Add(time.Second), time.Now().Add(-testCallTimeout), w.addrs(0, 1)); err != nil {
		t.Errorf("with the control plane gone, after j3 crashed: %v", err)
	}
	for _, c := range w.clients() {
		tl := TallyOf(c.Calls(crashed.Add(-testCallTimeout), crashed.Add(time.Second)))
		t.Logf("%s around the crash: %d ok over %v, %d failed (%s)", c.Spec.Name, tl.OK, tl.TargetList(), tl.Fail, firstErr(c, crashed.Add(-testCallTimeout), crashed.Add(time.Second)))
	}
	return time.Since(killed)
}

// emptyRestart restarts the control plane with an empty snapshot held
// until told to follow, after an outage of down.
func (w *testWorld) emptyRestart(t *testing.T, down time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	restarted := time.Now()
	if err := w.cp.Restart(ctx, EmptySnapshot, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane restarted (empty snapshot) in %s", w.cp.ReadyIn.Round(time.Millisecond))
	band := ReconnectWithin(down) + time.Second
	back := w.waitStreams(t, 2, band)
	t.Logf("both clients' ADS streams up %.1f s after the restart (band %.1f s from the back-off after %.1f s down)",
		back.Sub(restarted).Seconds(), band.Seconds(), down.Seconds())
	time.Sleep(4 * time.Second)
	from, to := back.Add(time.Second), time.Now().Add(-testCallTimeout)
	judgeRestart(t, w.plain, EmptySnapshot, false, from, to, w.addrs(0, 1))
	judgeRestart(t, w.ignores, EmptySnapshot, true, from, to, w.addrs(0, 1))
	if err := w.cp.Follow(); err != nil {
		t.Fatal(err)
	}
	followed := time.Now()
	ok := w.waitServing(t, w.addrs(0, 1), 20*time.Second)
	t.Logf("both clients serving over j1, j2 within %.1f s of following the registry", ok.Add(testCallTimeout).Sub(followed).Seconds())
}

// quickRestart kills the control plane and restarts it at once with
// start, held until told to follow; it judges the clients' calls over
// observe from when both streams are up, then makes it follow.
func (w *testWorld) quickRestart(t *testing.T, start StartSnapshot, observe time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	killed := time.Now()
	w.cp.Kill()
	if err := w.cp.Restart(ctx, start, 0); err != nil {
		t.Fatal(err)
	}
	back := w.waitStreams(t, 2, ReconnectWithin(time.Since(killed))+time.Second)
	time.Sleep(observe + testCallTimeout)
	from, to := back.Add(time.Second), back.Add(observe)
	judgeRestart(t, w.plain, start, false, from, to, w.addrs(0, 1))
	judgeRestart(t, w.ignores, start, true, from, to, w.addrs(0, 1))
	if err := w.cp.Follow(); err != nil {
		t.Fatal(err)
	}
	w.waitServing(t, w.addrs(0, 1), 20*time.Second)
}

// judgeRestart checks c's calls in [from, to) against ServesAfterRestart.
func judgeRestart(t *testing.T, c *Client, start StartSnapshot, ignore bool, from, to time.Time, live []string) {
	t.Helper()
	want, why := ServesAfterRestart(start, ignore)
	tl := TallyOf(c.Calls(from, to))
	t.Logf("%s after a restart with snapshot %q: %d ok over %v, %d failed (%s); rule: serves %v (%s)",
		c.Spec.Name, start, tl.OK, tl.TargetList(), tl.Fail, firstErr(c, from, to), want, why)
	err := fails(c, from, to)
	if want {
		err = serves(c, from, to, live)
	}
	if err != nil {
		t.Errorf("%s restart, ignore_resource_deletion %v: %v", start, ignore, err)
	}
}

// closeAndCheckNothingLeft closes the supervisor and checks every child it
// started is gone.
func (w *testWorld) closeAndCheckNothingLeft(t *testing.T) {
	t.Helper()
	pids := []int{w.cp.Child().Pid(), w.plain.Child().Pid(), w.ignores.Child().Pid()}
	for _, n := range w.etcd.Nodes() {
		pids = append(pids, n.Child().Pid())
	}
	w.group.Close()
	if err := w.sup.Close(); err != nil {
		t.Errorf("closing the supervisor: %v", err)
	}
	for _, pid := range pids {
		if childproc.Alive(pid) {
			t.Errorf("process %d outlived the supervisor", pid)
		}
	}
	if left, err := ports.Listening(testPortBase, testPortBase+50); err != nil || len(left) != 0 {
		t.Errorf("ports still listened on after the run: %v (%v)", left, err)
	}
}
