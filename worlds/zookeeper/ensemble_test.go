package zookeeper

import (
	"context"
	"fmt"
	"os"
	"path"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// TestEnsembleLeaderKill is the real-ensemble test: three ZooKeeper JVMs form a
// quorum, three Go instances register, both Java clients call them, the
// leader is SIGKILLed and the survivors elect a new one, the member restarts
// and rejoins; then nothing is left (chroot, processes, temp dir).
func TestEnsembleLeaderKill(t *testing.T) {
	needLong(t)
	sup := newSup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	alloc := ports.New(testPortBase, "testPortBase")
	cfg := DefaultConfig()
	cfg.Logf = t.Logf
	cfg.Keep = os.Getenv("SDCHAOS_ZK_KEEP") != ""
	e, err := Start(ctx, sup, alloc, cfg)
	skipWithoutJVM(t, err)
	if err != nil {
		t.Fatal(err)
	}
	logMembers(t, e, "after start")
	instances := startInstances(t, ctx, e, alloc, 3)
	checkRegistered(t, ctx, e, 3)
	// Two JVMs starting beside three members took 16–148 s on two shared cores
	// (load average up to 40): the calls end 4 minutes from now, and each
	// caller must be ready a minute before (the kill comes 10 s after both are).
	end := time.Now().Add(4 * time.Minute)
	callers, ready := startCallers(t, ctx, sup, e, end)
	waitUntil(t, ctx, time.Now().Add(10*time.Second))
	for _, c := range callers {
		rss, err := c.RSS()
		t.Logf("caller %s: RSS %d MiB (%v)", c.name, rss>>20, err)
	}
	killLeaderAndMeasure(t, ctx, e, cfg)
	checkRegistered(t, ctx, e, 3)
	for _, in := range instances {
		if n := in.Registrant().Registrations(); n != 1 {
			t.Errorf("instance %s registered %d times: its 20 s session should outlive an election", in.ID, n)
		}
	}
	waitUntil(t, ctx, end)
	checkCallers(t, callers, ready, end)
	for _, in := range instances {
		in.Close()
	}
	checkNothingLeft(t, e, sup)
}

func logMembers(t *testing.T, e *Ensemble, when string) {
	t.Helper()
	for _, m := range e.Members() {
		rss, _ := m.RSS()
		st, _ := m.State(context.Background())
		t.Logf("%s: %s pid %d %s zxid 0x%x sessions %d, RSS %d MiB", when, m.Name, m.Pid(), st.Mode, st.Zxid, st.Sessions, rss>>20)
	}
}

func startInstances(t *testing.T, ctx context.Context, e *Ensemble, alloc *ports.Allocator, n int) []*Instance {
	t.Helper()
	var out []*Instance
	for i := range n {
		in, err := StartInstance(ctx, alloc, RegistrantConfig{Servers: e.Servers(), Chroot: e.Chroot(),
			Service: "api", ID: fmt.Sprintf("api-%d", i+1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(in.Close)
		out = append(out, in)
	}
	return out
}

// checkRegistered reads the service's children and each node's payload.
func checkRegistered(t *testing.T, ctx context.Context, e *Ensemble, want int) {
	t.Helper()
	conn, events, err := dial(ctx, e.Servers(), 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	drain(events)
	dir := path.Join(e.Chroot(), ServicePath(DefaultBasePath, "api"))
	kids, _, err := conn.Children(dir)
	if err != nil || len(kids) != want {
		t.Fatalf("children of %s: %v, %v; want %d", dir, kids, err, want)
	}
	for _, k := range kids {
		b, st, err := conn.Get(path.Join(dir, k))
		if err != nil {
			t.Fatal(err)
		}
		si, err := ParseServiceInstance(b)
		if err != nil || si.ID != k || st.EphemeralOwner == 0 {
			t.Errorf("node %s: %+v (ephemeral owner %x), %v", k, si, st.EphemeralOwner, err)
		}
	}
}

// startCallers starts one caller of each kind, calling from the moment each is
// ready until end; it returns once both are ready, and when each became so.
func startCallers(t *testing.T, ctx context.Context, sup *childproc.Supervisor, e *Ensemble, end time.Time) ([]*JavaCaller, []time.Time) {
	t.Helper()
	dir := t.TempDir()
	var out []*JavaCaller
	for _, mode := range []JavaMode{Curator, Spring} {
		c, err := StartJavaCaller(ctx, sup, JavaCallerSpec{Name: string(mode), Mode: mode, Connect: e.ConnectString(),
			Service: "api", Rate: callRate, End: end, CallTimeout: time.Second, Dir: dir, Logf: t.Logf})
		skipWithoutJVM(t, err)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	var ready []time.Time
	for _, c := range out {
		select {
		case <-c.Started():
		case <-c.Done():
			_, err := c.Wait()
			t.Fatalf("caller exited before starting: %v", err)
		case <-time.After(time.Until(end.Add(-time.Minute))):
			t.Fatalf("caller not ready a minute before the end (log %s)", c.LogPath())
		}
		for _, ev := range c.Snapshot().Events {
			if ev.Kind == EventStarted {
				ready = append(ready, ev.Time)
				t.Logf("caller %s ready: %s", c.name, ev.Detail)
			}
		}
	}
	return out, ready
}

// callRate is each caller's calls per second.
const callRate = 20

func waitUntil(t *testing.T, ctx context.Context, at time.Time) {
	t.Helper()
	select {
	case <-time.After(time.Until(at)):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
}

// killLeaderAndMeasure SIGKILLs the leader, measures until the survivors have
// a quorum again (within ElectionBound), restarts it and waits for all three.
func killLeaderAndMeasure(t *testing.T, ctx context.Context, e *Ensemble, cfg Config) {
	t.Helper()
	leader := e.Leader(ctx)
	if leader == nil {
		t.Fatal("no leader before the kill")
	}
	var survivors []*Member
	for _, m := range e.Members() {
		if m != leader {
			survivors = append(survivors, m)
		}
	}
	bound := ElectionBound(cfg.TickTime, cfg.InitLimit)
	t0 := time.Now()
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	// Waits past the bound (up to 2 minutes) to report how long it really took.
	next, err := e.waitQuorumOf(ctx, survivors, 2*time.Minute)
	took := time.Since(t0)
	if err != nil {
		t.Fatalf("after SIGKILL of leader %s: %v", leader.Name, err)
	}
	if took > bound {
		t.Errorf("election took %s, beyond initLimit×tickTime + 2×finalizeWait = %s", took, bound)
	}
	t.Logf("ELECTION: leader %s SIGKILLed; %s leads with %s following after %.0f ms (bound initLimit×tickTime + 2×finalizeWait = %s)",
		leader.Name, next.Name, otherName(survivors, next), float64(took.Microseconds())/1000, bound)
	if err := leader.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.WaitQuorum(ctx, cfg.ReadyTimeout); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s rejoined %.1f s after its restart", leader.Name, time.Since(t0.Add(took)).Seconds())
	logMembers(t, e, "after the rejoin")
}

func otherName(ms []*Member, not *Member) string {
	for _, m := range ms {
		if m != not {
			return m.Name
		}
	}
	return ""
}

// checkCallers: both clients keep an instance to call through the election
// (Curator's ServiceCache keeps its list while disconnected; LoadBalancer's
// 35 s cache, filled by the first call before the kill, holds the list
// through the election, which ends well within 35 s), so no call fails for
// want of an instance. Calls to a live instance
// that time out are the machine's load (two cores shared with other runs), not
// discovery: they are logged, not judged.
func checkCallers(t *testing.T, callers []*JavaCaller, ready []time.Time, end time.Time) {
	t.Helper()
	for i, c := range callers {
		res, err := c.Wait()
		if err != nil {
			t.Errorf("%v", err)
		}
		noInstance := 0
		for _, call := range res.Calls {
			if call.Outcome != OK && call.Target == "" {
				noInstance++
			}
		}
		t.Logf("caller %s: %d calls, %d ok, %d fail, %d unknown, %d without an instance; connection states %v; %d console lines",
			c.name, len(res.Calls), res.Count(OK), res.Count(Fail), res.Count(Unknown), noInstance, states(res), res.Other)
		logFailures(t, c.name, res)
		// The grid starts at most a moment before the started event's stamp.
		want := int(end.Sub(ready[i]).Seconds() * callRate)
		if len(res.Calls) < want || len(res.Calls) > want+callRate {
			t.Errorf("caller %s made %d calls; want %d–%d (%d/s from its start to the end)", c.name, len(res.Calls), want, want+callRate, callRate)
		}
		if noInstance > 0 {
			t.Errorf("caller %s: %d calls found no instance: its list should have outlived the election", c.name, noInstance)
		}
		if res.Count(OK) == 0 {
			t.Errorf("caller %s: no call succeeded", c.name)
		}
	}
}

// logFailures logs the first and last failed calls and the connection events.
func logFailures(t *testing.T, name string, res Result) {
	t.Helper()
	var bad []Call
	for _, c := range res.Calls {
		if c.Outcome != OK {
			bad = append(bad, c)
		}
	}
	for i, c := range bad {
		if i < 3 || i == len(bad)-1 {
			t.Logf("  %s: %s call due %s started %s ended %s to %q: %s", name, c.Outcome, c.Scheduled.Format("15:04:05.000"),
				c.Start.Format("15:04:05.000"), c.End.Format("15:04:05.000"), c.Target, c.Err)
		}
	}
	for _, e := range res.Connections() {
		t.Logf("  %s: %s at %s", name, e.State, e.Time.Format("15:04:05.000"))
	}
}

func states(r Result) []ConnState {
	var out []ConnState
	for _, e := range r.Connections() {
		out = append(out, e.State)
	}
	return out
}

// checkNothingLeft closes the ensemble (its chroot removed and checked gone),
// then the supervisor, and checks no member runs and the dir is gone.
func checkNothingLeft(t *testing.T, e *Ensemble, sup *childproc.Supervisor) {
	t.Helper()
	pids := []int{}
	for _, m := range e.Members() {
		pids = append(pids, m.Pid())
	}
	if err := e.Close(); err != nil {
		t.Errorf("closing the ensemble: %v", err)
	}
	if err := sup.Close(); err != nil {
		t.Errorf("closing the supervisor: %v", err)
	}
	for _, pid := range pids {
		if childproc.Alive(pid) {
			t.Errorf("member pid %d still runs", pid)
		}
	}
	if _, err := os.Stat(e.Dir); !e.Config().Keep && !os.IsNotExist(err) {
		t.Errorf("the ensemble's dir %s is still there (%v)", e.Dir, err)
	}
}
