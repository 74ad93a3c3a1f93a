package zookeeper

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"sdchaos/linkproxy"
)

// freeAddr returns a loopback address no one listens on (the kernel's
// pick, closed again).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestQuorumLinkGivesTheLearnerItsTries: a learner that decided on a
// leader connects through its quorum link before the leader listens. The
// link accepts at once; with the learner's tries (dialLearner) a leader
// that listens 150 ms later receives what the learner sent, and one that
// never listens has the learner's connection reset after the last try. A
// plain dial (the links before) resets it although the leader listens 150
// ms later: the learner gave up where ZooKeeper would have tried again.
func TestQuorumLinkGivesTheLearnerItsTries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dial    linkproxy.Dialer
		listen  bool
		arrives bool
	}{
		{"the learner's tries, the leader listening 150 ms late", dialLearner, true, true},
		{"the learner's tries, the leader never listening", dialLearner, false, false},
		{"a plain dial, the leader listening 150 ms late", net.DialTimeout, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leader := freeAddr(t)
			p, err := linkproxy.NewDial(freeAddr(t), leader, tc.dial)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			got := make(chan string, 1)
			if tc.listen {
				time.AfterFunc(150*time.Millisecond, func() { got <- acceptOne(leader) })
			}
			start := time.Now()
			err = learnerSends(p.Addr(), "FOLLOWERINFO")
			took := time.Since(start)
			switch {
			case tc.arrives && err != nil:
				t.Fatalf("the learner's connection failed after %s: %v", took, err)
			case tc.arrives && <-got != "FOLLOWERINFO":
				t.Fatal("the leader did not receive what the learner sent")
			case !tc.arrives && err == nil:
				t.Fatalf("the learner's connection was not reset (%s)", took)
			case !tc.arrives && !tc.listen && took < (LearnerConnectTries-1)*LearnerConnectRetryDelay:
				t.Fatalf("reset after %s, before the learner's %d tries %s apart", took, LearnerConnectTries, LearnerConnectRetryDelay)
			}
		})
	}
}

// acceptOne listens on addr for 2 s, accepts one connection and returns
// what it read ("" on an error), answering "ok".
func acceptOne(addr string) string {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return ""
	}
	defer ln.Close()
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(2 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		return ""
	}
	defer c.Close()
	b := make([]byte, len("FOLLOWERINFO"))
	if _, err := io.ReadFull(c, b); err != nil {
		return ""
	}
	_, _ = c.Write([]byte("ok"))
	return string(b)
}

// learnerSends connects to addr, sends msg and waits for the two-byte
// answer, as a learner registering with its leader; an error is the reset
// (or the close) it read instead.
func learnerSends(addr, msg string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(msg)); err != nil {
		return err
	}
	b := make([]byte, 2)
	if _, err := io.ReadFull(c, b); err != nil {
		return err
	}
	if string(b) != "ok" {
		return errors.New("unexpected answer " + string(b))
	}
	return nil
}
