package zookeeper

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"sdchaos/ports"
)

// TestSessionExpiryAndAttach: a crashed instance's node stays until the server
// expires its session, within the band ZooKeeper's rules give; then the same
// ensemble is attached to as if the harness had not started it: a run there
// gets its own chroot, cannot kill a member, and leaves nothing.
func TestSessionExpiryAndAttach(t *testing.T) {
	needLong(t)
	sup := newSup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	alloc := ports.New(testPortBase+50, "testPortBase")
	cfg := DefaultConfig()
	cfg.Logf = t.Logf
	e, err := Start(ctx, sup, alloc, cfg)
	skipWithoutJVM(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checkExpiry(t, ctx, e, alloc, cfg)
	checkReregistration(t, ctx, e, alloc, cfg)
	checkAttach(t, ctx, e, alloc)
}

// checkExpiry crashes an instance with a 4 s session (2 ticks, the least the
// members grant) and times its node's removal. The server saw the client last
// at most a ping interval (readTimeout/2 = T/3) before the crash and expires
// the session on the tick after T from then (ExpiryQueue rounds up to
// tickTime): the node goes within [T − T/3, T + tickTime] of the crash, plus
// the leader's commit and this poll (allowed 1 s).
func checkExpiry(t *testing.T, ctx context.Context, e *Ensemble, alloc *ports.Allocator, cfg Config) {
	t.Helper()
	session := NegotiateSessionTimeout(4*time.Second, cfg.TickTime, cfg.MinSessionTimeout, cfg.MaxSessionTimeout)
	in, err := StartInstance(ctx, alloc, RegistrantConfig{Servers: e.Servers(), Chroot: e.Chroot(), Service: "api",
		ID: "doomed", SessionTimeout: session})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	conn, events, err := dial(ctx, e.Servers(), 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	drain(events)
	t0 := time.Now()
	in.Crash()
	for {
		ok, err := exists(ctx, conn, in.Registrant().Node())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(t0)
	lo, hi := session-session*ReadTimeoutNum/ReadTimeoutDen/2, session+cfg.TickTime+time.Second
	t.Logf("EXPIRY: crashed instance's node gone %.2f s after the crash (session %s; band %.2f–%.2f s)", took.Seconds(), session, lo.Seconds(), hi.Seconds())
	if took < lo || took > hi {
		t.Errorf("node gone after %s, outside [%s, %s]", took, lo, hi)
	}
}

// checkAttach attaches to e's members by their connect string.
func checkAttach(t *testing.T, ctx context.Context, e *Ensemble, alloc *ports.Allocator) {
	t.Helper()
	x, err := Attach(ctx, AttachConfig{ConnectString: e.ConnectString()})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Members()) != 3 || x.Chroot() == e.Chroot() {
		t.Fatalf("attached: %d members, chroot %s (ours %s)", len(x.Members()), x.Chroot(), e.Chroot())
	}
	if err := x.Members()[0].Kill(); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Kill on an attached member: %v, want ErrNotOurs", err)
	}
	if st, err := x.Members()[0].State(ctx); err != nil || !st.Mode.Serving() {
		t.Errorf("attached member's state: %+v, %v", st, err)
	}
	in, err := StartInstance(ctx, alloc, RegistrantConfig{Servers: x.Servers(), Chroot: x.Chroot(), Service: "api", ID: "guest"})
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	chroot := x.Chroot()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	conn, events, err := dial(ctx, e.Servers(), 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	drain(events)
	if left, err := exists(ctx, conn, chroot); err != nil || left {
		t.Errorf("attached run's chroot %s left: %v %v", chroot, left, err)
	}
	for _, m := range e.Members() {
		if !m.Alive() {
			t.Errorf("member %s died when the attached run closed", m.Name)
		}
	}
	t.Logf("ATTACH: run chroot %s under %s created and removed; members untouched", chroot, e.Chroot())
}

// checkReregistration cuts an instance's link until its session expired and
// heals it: the client gets a new session and registers again (Curator's
// ServiceDiscoveryImpl does the same on RECONNECTED).
func checkReregistration(t *testing.T, ctx context.Context, e *Ensemble, alloc *ports.Allocator, cfg Config) {
	t.Helper()
	session := NegotiateSessionTimeout(4*time.Second, cfg.TickTime, 0, 0)
	in, err := StartInstance(ctx, alloc, RegistrantConfig{Servers: e.Servers(), Chroot: e.Chroot(), Service: "api",
		ID: "phoenix", SessionTimeout: session})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	conn, events, err := dial(ctx, e.Servers(), 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	drain(events)
	r := in.Registrant()
	first := r.SessionID()
	r.Cut()
	waitNode(t, ctx, conn, r.Node(), false)
	t0 := time.Now()
	r.Heal()
	waitNode(t, ctx, conn, r.Node(), true)
	_, st, err := conn.Get(r.Node())
	if err != nil {
		t.Fatal(err)
	}
	var seen []SessionState
	for _, ev := range r.Events() {
		seen = append(seen, ev.State)
	}
	t.Logf("REREGISTER: node back %.2f s after the heal, owner 0x%x (first session 0x%x); %d registrations; session states %v",
		time.Since(t0).Seconds(), st.EphemeralOwner, first, r.Registrations(), seen)
	if st.EphemeralOwner == first || st.EphemeralOwner != r.SessionID() || r.Registrations() != 2 {
		t.Errorf("after the expiry: owner 0x%x, session 0x%x (first 0x%x), %d registrations; want a new session's node, registered twice",
			st.EphemeralOwner, r.SessionID(), first, r.Registrations())
	}
}

// waitNode polls until node p exists (or not), for up to a minute.
func waitNode(t *testing.T, ctx context.Context, conn *zk.Conn, p string, want bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ok, err := exists(ctx, conn, p)
		if err == nil && ok == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s: exists %v (%v) after a minute, want %v", p, ok, err, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
