package zookeeper

import (
	"encoding/binary"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The first message a member sends on an election connection it dialled
// (QuorumCnxManager.startConnection, ZooKeeper 3.9.5
// server/quorum/QuorumCnxManager.java:463-493): a protocol version (int64,
// PROTOCOL_VERSION_V1 = -65536 or V2 = -65535, lines 123-125), its sid
// (int64), and its own election address(es) as a length-prefixed
// "host:port[|host:port…]" string. A peer with a higher sid closes such a
// connection and dials back the address it was told (handleConnection,
// lines 635-653), not the one its own zoo.cfg gives: that dial would go
// around the harness's peer links. InitialMessage.parse skips a wildcard
// host (line 282), and with no address left the peer dials the
// address of its own configuration (connectOne(sid), line 655), which is
// the link. So the election links rewrite every host of the first message
// to 0.0.0.0, as a NAT that hides the member's own address would.
const (
	protocolV1 = -65536
	protocolV2 = -65535
	// maxInitAddr bounds the address string (ZooKeeper refuses more than
	// its maxBuffer, 512 KiB by default; a member's address is tens of bytes).
	maxInitAddr = 4096
)

// RewriteInitialMessage returns msg (a complete initial message) with every
// address's host replaced by 0.0.0.0, and whether it was one: a message of
// the old protocol (a non-negative sid and nothing else) or a malformed one
// is returned as it is.
func RewriteInitialMessage(msg []byte) ([]byte, bool) {
	n, ok := initialMessageLen(msg)
	if !ok || n != len(msg) || n == 8 {
		return msg, false
	}
	addrs := strings.Split(string(msg[20:]), "|")
	for i, a := range addrs {
		k := strings.LastIndex(a, ":")
		if k < 0 {
			return msg, false
		}
		addrs[i] = "0.0.0.0" + a[k:]
	}
	s := strings.Join(addrs, "|")
	out := append([]byte(nil), msg[:16]...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(s)))
	return append(out, s...), true
}

// initialMessageLen returns the length of the initial message at the start
// of b, once b holds it all (ok false while more is needed, or for a
// message that is not one: then -1).
func initialMessageLen(b []byte) (int, bool) {
	if len(b) < 8 {
		return 0, false
	}
	v := int64(binary.BigEndian.Uint64(b))
	switch {
	case v >= 0:
		return 8, true // the old protocol: the sid alone
	case v != protocolV1 && v != protocolV2:
		return -1, true
	case len(b) < 20:
		return 0, false
	}
	l := int(binary.BigEndian.Uint32(b[16:]))
	if l <= 0 || l > maxInitAddr {
		return -1, true
	}
	if len(b) < 20+l {
		return 0, false
	}
	return 20 + l, true
}

// rewritingConn is the server side of an election link: what the member
// writes first is held until the whole initial message is there, rewritten
// (RewriteInitialMessage) and sent in one write (the peer reads it with one
// read, InitialMessage.parse); the rest passes unchanged.
type rewritingConn struct {
	net.Conn
	mu   sync.Mutex
	head []byte
	done bool
}

// dialRewriting dials addr and wraps the connection in a rewritingConn.
func dialRewriting(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &rewritingConn{Conn: c}, nil
}

// Write passes b on, rewriting the initial message first.
func (c *rewritingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return c.Conn.Write(b)
	}
	c.head = append(c.head, b...)
	n, ok := initialMessageLen(c.head)
	if !ok {
		return len(b), nil // wait for the rest of the message
	}
	c.done = true
	out := c.head
	if n > 0 {
		msg, _ := RewriteInitialMessage(c.head[:n])
		out = append(msg, c.head[n:]...)
	}
	c.head = nil
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// hostPort formats host:port.
func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
