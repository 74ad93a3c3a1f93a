package linkproxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/clock"
)

// echoServer answers each line with the same line.
func echoServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func newProxy(t testing.TB) *Proxy {
	t.Helper()
	p, err := New(freeAddr(t), echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// roundTrip writes a line and waits up to wait for the echo.
func roundTrip(c net.Conn, r *bufio.Reader, msg string, wait time.Duration) (string, error) {
	if _, err := c.Write([]byte(msg + "\n")); err != nil {
		return "", err
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	line, err := r.ReadString('\n')
	return strings.TrimSpace(line), err
}

func TestPassBlackholeHeal(t *testing.T) {
	p := newProxy(t)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if got, err := roundTrip(c, r, "one", time.Second); err != nil || got != "one" {
		t.Fatalf("pass: %q %v", got, err)
	}
	if err := p.Blackhole(); err != nil {
		t.Fatal(err)
	}
	if got, err := roundTrip(c, r, "two", 300*time.Millisecond); err == nil {
		t.Fatalf("blackhole let %q through", got)
	}
	// A new connection is accepted but silent.
	c2, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("blackhole refused a new connection: %v", err)
	}
	defer c2.Close()
	r2 := bufio.NewReader(c2)
	if _, err := roundTrip(c2, r2, "new", 200*time.Millisecond); err == nil {
		t.Fatal("a new connection passed bytes during the blackhole")
	}
	if err := p.Heal(); err != nil {
		t.Fatal(err)
	}
	// Held bytes arrive intact and in order after the heal.
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	if line, err := r.ReadString('\n'); err != nil || strings.TrimSpace(line) != "two" {
		t.Fatalf("held bytes after heal: %q %v", line, err)
	}
	if got, err := roundTrip(c, r, "three", time.Second); err != nil || got != "three" {
		t.Fatalf("after heal: %q %v", got, err)
	}
}

func TestRejectRefusesAndResets(t *testing.T) {
	p := newProxy(t)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := roundTrip(c, r, "hi", time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Reject(); err != nil {
		t.Fatal(err)
	}
	_, err = roundTrip(c, r, "after", time.Second)
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
		t.Errorf("open connection: err = %v, want a reset", err)
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("new connection: err = %v, want connection refused", err)
	}
	if err := p.Heal(); err != nil {
		t.Fatal(err)
	}
	c3, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("after heal: %v", err)
	}
	defer c3.Close()
	if got, err := roundTrip(c3, bufio.NewReader(c3), "back", time.Second); err != nil || got != "back" {
		t.Fatalf("after heal: %q %v", got, err)
	}
}

// TestDelayAddsLatencyBothWays: a line and its echo each cross the proxy
// once, each delayed by d, so the round trip takes at least 2 × d and at
// most 2 × d plus one late wake-up (clock.SchedSlack) for each of the six it
// waits on: the proxy reading the line, its delay timer, the echo server,
// the proxy reading the echo, its delay timer, the client. Once the delay
// is removed the round trip comes back below 2 × d, the least a delay
// still in place gives.
func TestDelayAddsLatencyBothWays(t *testing.T) {
	const d, wakeUps = 100 * time.Millisecond, 6
	p := newProxy(t)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	p.Delay(d)
	start := time.Now()
	if _, err := roundTrip(c, r, "slow", 2*time.Second); err != nil {
		t.Fatal(err)
	}
	lo, hi := 2*d, 2*d+wakeUps*clock.SchedSlack
	if rtt := time.Since(start); rtt < lo || rtt > hi {
		t.Errorf("round trip %s with %s each way, want %s–%s", rtt, d, lo, hi)
	}
	p.Delay(0)
	start = time.Now()
	if _, err := roundTrip(c, r, "fast", time.Second); err != nil || time.Since(start) >= 2*d {
		t.Errorf("delay not removed: %s %v (want below %s)", time.Since(start), err, 2*d)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "localhost:0", "10.0.0.1:0", "198.19.0.1:0"} {
		if p, err := New(addr, "127.0.0.1:1"); err == nil {
			p.Close()
			t.Errorf("New(%q) accepted a non-loopback listen address", addr)
		}
	}
}

func TestCloseWhileBlackholedReturns(t *testing.T) {
	p := newProxy(t)
	c, _ := net.Dial("tcp", p.Addr())
	defer c.Close()
	_ = p.Blackhole()
	_, _ = c.Write([]byte("stuck\n"))
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Close hung with a blackholed connection")
	}
}
