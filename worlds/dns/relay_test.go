package dns

import (
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
