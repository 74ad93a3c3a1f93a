package linkproxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// TestBlackholeHoldsTheClose: a client that closes its connection during a
// blackhole is not seen closing by the server until the heal (a network
// that loses every packet loses the FIN too); at the heal the close passes.
func TestBlackholeHoldsTheClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	p, err := New(freeAddr(t), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	defer srv.Close()
	r := bufio.NewReader(srv)
	_ = srv.SetReadDeadline(time.Now().Add(time.Second))
	if line, err := r.ReadString('\n'); err != nil || line != "hello\n" {
		t.Fatalf("before the blackhole: %q %v", line, err)
	}
	if err := p.Blackhole(); err != nil {
		t.Fatal(err)
	}
	c.Close() // the client crashes during the blackhole
	_ = srv.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := r.ReadByte(); !isTimeout(err) {
		t.Fatalf("during the blackhole the server read %v, want nothing (the close held)", err)
	}
	if err := p.Heal(); err != nil {
		t.Fatal(err)
	}
	_ = srv.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the heal the server read %v, want the close (EOF)", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
