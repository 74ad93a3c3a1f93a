package eurekareal

import (
	"context"
	"slices"
	"testing"
	"time"

	"sdchaos/clock"
	"sdchaos/ports"
)

// TestRealCluster starts 3 real Eureka servers (all under libfaketime when
// it is installed; only s1's clock is stepped) and, in order: a Go worker registered on s1 only shows up
// on s2 and s3 (replication delay measured); a scaled self-preservation
// timeline; a clock step on s1; the Java DiscoveryClient sticking to s1,
// s1 SIGKILLed, the time until the client's next successful fetch from
// another server.
func TestRealCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real JVMs (minutes)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	sup := newSupervisor(t)
	defer sup.Close()
	alloc := ports.New(testBase, "the test's port base")
	_, ftErr := Faketime()
	servers := startCluster(t, ctx, sup, alloc, ClusterSpec{Props: scaledProps(), ClockControl: ftErr == nil})
	w := &world{t: t, ctx: ctx, alloc: alloc, servers: servers}
	defer w.crashAll()
	t.Run("replication", w.replication)
	t.Run("self-preservation", w.selfPreservation)
	t.Run("clock-step", func(t *testing.T) {
		if ftErr != nil {
			t.Skip(ftErr)
		}
		w.clockStep(t)
	})
	t.Run("client-failover", func(t *testing.T) { w.clientFailover(t, sup) })
	for _, s := range servers {
		rss, err1 := s.RSS()
		cpu, err2 := s.CPU()
		if err1 == nil && err2 == nil {
			t.Logf("%s at the end: RSS %d MiB, CPU %.1f s, clock offset %s", s.Name, rss>>20, cpu.Seconds(), s.ClockOffset())
		}
	}
}

// world is the running cluster and its workers.
type world struct {
	t       *testing.T
	ctx     context.Context
	alloc   *ports.Allocator
	servers []*Server
	workers []*Worker
}

func (w *world) crashAll() {
	for _, wk := range w.workers {
		wk.Crash()
	}
}

// startWorker registers worker id with the given server order.
func (w *world) startWorker(t *testing.T, id string, order []string) *Worker {
	t.Helper()
	port, err := w.alloc.Take("worker " + id)
	if err != nil {
		t.Fatal(err)
	}
	wk, err := StartWorker(w.ctx, WorkerSpec{App: "WORKER", ID: id, Port: port, Servers: order, Props: scaledProps(),
		HeartbeatPhase: time.Duration(len(w.workers)) * 97 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w.workers = append(w.workers, wk)
	return wk
}

func (w *world) holds(s *Server, key string) bool {
	st, err := s.State(w.ctx)
	return err == nil && slices.Contains(st.IDs, key)
}

func (w *world) replication(t *testing.T) {
	start := time.Now()
	w.startWorker(t, "w00", []string{w.servers[0].ServiceURL})
	registered := time.Since(start)
	seen := map[string]time.Duration{}
	_, err := waitFor(w.ctx, 10*time.Second, "s2 and s3 holding WORKER/w00", func() bool {
		for _, s := range w.servers[1:] {
			if _, ok := seen[s.Name]; !ok && w.holds(s, "WORKER/w00") {
				seen[s.Name] = time.Since(start)
			}
		}
		return len(seen) == len(w.servers)-1
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replication delay of w00's registration on s1 (POST answered after %d ms): s2 %d ms, s3 %d ms",
		registered.Milliseconds(), seen["s2"].Milliseconds(), seen["s3"].Milliseconds())
	ev, err := w.servers[1].Events(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ev.Events, func(e Event) bool { return e.Kind == EventRegister && e.ID == "WORKER/w00" })
	if i < 0 || !ev.Events[i].Replicated || !ev.Events[i].New {
		t.Errorf("s2's events lack a replicated new registration of w00: %+v", ev.Events)
	}
}

// clockStep steps s1's wall clock forward by a minute and checks that the
// JVM's wall clock jumped while its monotonic clock and its timers did not.
func (w *world) clockStep(t *testing.T) {
	s := w.servers[0]
	before, err := s.State(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	const step = 60 * time.Second
	stepped := time.Now()
	if err := s.StepClock(step); err != nil {
		t.Fatal(err)
	}
	if err := clock.SleepFor(w.ctx, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	after, err := s.State(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Each State reads the wall and the monotonic clock one after the other,
	// so wall − mono moves by the step, give or take a late wake-up between
	// the two reads.
	jump := time.Duration((after.WallMS-after.MonoMS)-(before.WallMS-before.MonoMS)) * time.Millisecond
	t.Logf("s1: wall − mono moved by %s after a %s step", jump, step)
	if jump < step-jvmWake || jump > step+jvmWake {
		t.Fatalf("the JVM's wall clock moved by %s, want %s ± %s", jump, step, jvmWake)
	}
	ev, err := s.Events(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.logRunsAround(t, ev, stepped)
	for _, x := range w.servers { // under libfaketime each clock read re-reads the offset file (FAKETIME_NO_CACHE)
		if cpu, err := x.CPU(); err == nil {
			t.Logf("%s CPU so far: %.1f s (under libfaketime: %v)", x.Name, cpu.Seconds(), x.clock != nil)
		}
	}
}

// logRunsAround logs s1's eviction runs around the step and checks their
// monotonic spacing stayed one interval (java.util.Timer waits on relative
// delays, so a forward step does not fire it early): the EvictionTask runs
// with fixed delay, each run one interval after the previous one started
// plus its own lateness, and each run's time is taken as it starts, so two
// runs are one interval ± one late wake-up (jvmWake) apart.
func (w *world) logRunsAround(t *testing.T, ev Events, at time.Time) {
	s := w.servers[0]
	interval := scaledProps().EvictionInterval
	lo, hi := (interval - jvmWake).Milliseconds(), (interval + jvmWake).Milliseconds()
	var prev int64
	for _, r := range ev.Evictions {
		host := s.HostTime(r.MonoMS)
		if host.Before(at.Add(-3*time.Second)) || host.After(at.Add(4*time.Second)) {
			prev = r.MonoMS
			continue
		}
		t.Logf("s1 eviction run at host %s: wall−host %+d ms, mono gap %d ms, enabled %v, renews %d/%d, size %d, would expire %d, evicted %v",
			host.Format("15:04:05.000"), r.WallMS-host.UnixMilli(), r.MonoMS-prev, r.Enabled, r.RenewsLastMin,
			r.Threshold, r.Size, r.WouldExpire, r.Evicted)
		if prev > 0 && (r.MonoMS-prev < lo || r.MonoMS-prev > hi) {
			t.Errorf("eviction runs %d ms apart on the monotonic clock around the step, want %d–%d", r.MonoMS-prev, lo, hi)
		}
		prev = r.MonoMS
	}
}
