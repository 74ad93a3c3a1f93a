package zookeeper

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// initialMessage builds an election connection's first message as
// QuorumCnxManager.startConnection writes it.
func initialMessage(version, sid int64, addrs ...string) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, version)
	_ = binary.Write(&b, binary.BigEndian, sid)
	s := strings.Join(addrs, "|")
	_ = binary.Write(&b, binary.BigEndian, int32(len(s)))
	b.WriteString(s)
	return b.Bytes()
}

func TestRewriteInitialMessage(t *testing.T) {
	sid := make([]byte, 8)
	binary.BigEndian.PutUint64(sid, 3)
	tests := []struct {
		name string
		in   []byte
		want []byte
		ok   bool
	}{
		{"v1", initialMessage(protocolV1, 2, "127.0.0.1:9152"), initialMessage(protocolV1, 2, "0.0.0.0:9152"), true},
		{"v2, two addresses", initialMessage(protocolV2, 1, "127.0.0.1:1", "[::1]:2"), initialMessage(protocolV2, 1, "0.0.0.0:1", "0.0.0.0:2"), true},
		{"old protocol: the sid alone", sid, sid, false},
		{"unknown version", initialMessage(-7, 2, "127.0.0.1:1"), initialMessage(-7, 2, "127.0.0.1:1"), false},
		{"no port", initialMessage(protocolV1, 2, "localhost"), initialMessage(protocolV1, 2, "localhost"), false},
		{"truncated", initialMessage(protocolV1, 2, "127.0.0.1:9152")[:22], initialMessage(protocolV1, 2, "127.0.0.1:9152")[:22], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RewriteInitialMessage(tt.in)
			if ok != tt.ok || !bytes.Equal(got, tt.want) {
				t.Errorf("RewriteInitialMessage = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestRewritingConnSendsTheMessageWhole writes the first message in pieces
// and then more bytes: the peer reads the rewritten message in one read
// (as InitialMessage.parse does), then the rest unchanged.
func TestRewritingConnSendsTheMessageWhole(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan [][]byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		first := make([]byte, 256)
		n, _ := c.Read(first)
		rest, _ := io.ReadAll(c)
		got <- [][]byte{first[:n], rest}
	}()
	c, err := dialRewriting("tcp", ln.Addr().String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	msg := initialMessage(protocolV1, 1, "127.0.0.1:9152")
	for _, piece := range [][]byte{msg[:5], msg[5:19], msg[19:], []byte("vote")} {
		if n, err := c.Write(piece); err != nil || n != len(piece) {
			t.Fatalf("Write(%d bytes) = %d, %v", len(piece), n, err)
		}
		time.Sleep(20 * time.Millisecond) // separate segments
	}
	c.Close()
	parts := <-got
	want := initialMessage(protocolV1, 1, "0.0.0.0:9152")
	if len(parts) != 2 || !bytes.Equal(parts[0], want) || string(parts[1]) != "vote" {
		t.Errorf("the peer read %q then %q; want %q in one read, then \"vote\"", parts[0], parts[1], want)
	}
}
