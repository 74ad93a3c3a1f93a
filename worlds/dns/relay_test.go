package dns

import (
	"io"
	"net"
	"testing"
	"time"

	"sdchaos/ports"
)

// TestRelayPassesAndHolds sends datagrams through a relay to a UDP socket
// that answers each with its own bytes: they pass, held they are dropped
// both ways, released they pass again, and Close leaves the port free.
func TestRelayPassesAndHolds(t *testing.T) {
	up, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := up.ReadFromUDP(buf)
			if err != nil {
				return
			}
			_, _ = up.WriteToUDP(buf[:n], from)
		}
	}()
	echoTCP(t, up.LocalAddr().String())
	r, err := StartRelay(ports.New(testPortBase+90, "test"), "test", up.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	ask := func(want bool) {
		t.Helper()
		c, err := net.Dial("udp", r.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = c.Write([]byte("q"))
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		_, err = c.Read(make([]byte, 8))
		if got := err == nil; got != want {
			t.Errorf("held=%v: answered %v (%v), want %v", r.Held(), got, err, want)
		}
	}
	ask(true)
	r.Hold()
	ask(false)
	r.Release()
	ask(true)
	askTCP(t, r)
	r.Close()
	again, err := net.ListenUDP("udp", mustUDP(t, r.Addr()))
	if err != nil {
		t.Fatalf("the relay's port is still taken after Close: %v", err)
	}
	_ = again.Close()
}

func mustUDP(t *testing.T, addr string) *net.UDPAddr {
	t.Helper()
	a, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// echoTCP answers every TCP connection on addr with its own bytes.
func echoTCP(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
}

// askTCP checks the relay's TCP side: bytes pass, held they are dropped
// on a connection that stays open, released they pass again.
func askTCP(t *testing.T, r *Relay) {
	t.Helper()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	try := func(msg string, want bool) {
		t.Helper()
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		buf := make([]byte, 8)
		n, err := c.Read(buf)
		if got := err == nil && string(buf[:n]) == msg; got != want {
			t.Errorf("TCP, held=%v: %q answered %v (%q, %v), want %v", r.Held(), msg, got, buf[:n], err, want)
		}
	}
	try("a", true)
	r.Hold()
	try("b", false)
	r.Release()
	try("c", true)
}
