package zookeeper

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"sdchaos/ports"
)

// TestPauseLeader SIGSTOPs the leader: a paused member does not answer its
// four-letter words; its followers keep serving until their read timeout of
// syncLimit × tickTime fires (the leader pinged them at most half a tick
// before the pause), then elect a new leader among themselves. So the new
// quorum comes within [FollowerCutOff − tickTime/2, FollowerCutOff +
// ElectionBound] of the pause. Resumed, the old leader rejoins as a follower.
func TestPauseLeader(t *testing.T) {
	needLong(t)
	sup := newSup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg := DefaultConfig()
	cfg.Logf = t.Logf
	e, err := Start(ctx, sup, ports.New(testPortBase+150, "testPortBase"), cfg)
	skipWithoutJVM(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checkLoopbackOnly(t, e)
	leader := e.Leader(ctx)
	if leader == nil {
		t.Fatal("no leader")
	}
	var others []*Member
	for _, m := range e.Members() {
		if m != leader {
			others = append(others, m)
		}
	}
	t0 := time.Now()
	if err := leader.Pause(); err != nil {
		t.Fatal(err)
	}
	if _, err := leader.State(ctx); !errors.Is(err, ErrUnreachable) {
		t.Errorf("paused leader's state: %v, want ErrUnreachable", err)
	}
	next, err := e.waitQuorumOf(ctx, others, 2*time.Minute)
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	cut := FollowerCutOff(cfg.TickTime, cfg.SyncLimit)
	lo, hi := cut-cfg.TickTime/2, cut+ElectionBound(cfg.TickTime, cfg.InitLimit)
	t.Logf("PAUSE: leader %s SIGSTOPped; %s leads after %.2f s (band %.1f–%.1f s: syncLimit×tickTime %s, then the election)",
		leader.Name, next.Name, took.Seconds(), lo.Seconds(), hi.Seconds(), cut)
	if took < lo || took > hi {
		t.Errorf("new quorum after %s, outside [%s, %s]", took, lo, hi)
	}
	if err := leader.Resume(); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	if _, err := e.WaitQuorum(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	st, _ := leader.State(ctx)
	t.Logf("PAUSE: %s resumed and back as %s after %.2f s", leader.Name, st.Mode, time.Since(t1).Seconds())
	if st.Mode != ModeFollower {
		t.Errorf("resumed old leader is %s, want follower", st.Mode)
	}
}

// checkLoopbackOnly lists every TCP listener of each member's JVM with ss and
// requires it on 127.0.0.1: the client and election ports, and the quorum port
// on the leader; nothing on another address.
func checkLoopbackOnly(t *testing.T, e *Ensemble) {
	t.Helper()
	out, err := exec.Command("ss", "-ltnpH").Output()
	if err != nil {
		t.Skipf("ss: %v", err)
	}
	for _, m := range e.Members() {
		tag := "pid=" + strconv.Itoa(m.Pid()) + ","
		var addrs []string
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if strings.Contains(line, tag) && len(f) >= 4 {
				addrs = append(addrs, f[3])
				// Java's sockets are IPv6 ones bound to the IPv4-mapped 127.0.0.1.
				if !strings.HasPrefix(f[3], "127.0.0.1:") && !strings.HasPrefix(f[3], "[::ffff:127.0.0.1]:") {
					t.Errorf("%s listens on %s", m.Name, f[3])
				}
			}
		}
		if len(addrs) < 2 {
			t.Errorf("%s: only %v listening (want the client and election ports at least)", m.Name, addrs)
		}
		t.Logf("%s listens on %v", m.Name, addrs)
	}
}
