package fakeservice

import (
	"context"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Cut is a blackhole on the links of the H2Conns that hold it, inside the
// harness instead of on a proxy: while it holds, what a connection writes
// is kept back (the write returns at once, as one into a socket's buffer
// does), what arrives for it is not read (it waits in the kernel's buffer,
// as it would in a proxy's), its reads wait, and a connection dialled then
// waits too; at Release the kept bytes leave in order and the reads go on.
// The registry sees what a blackholing proxy shows it — its connections
// stay open and silent, and what the clients sent arrives at the heal — and
// the clients see a link that stopped answering, at no cost per connection
// while the link passes: no second socket pair, no copy, no goroutine (a
// storm of 5000 proxied links cost the harness a third of its CPU time and
// half its memory). A connection closed while the link holds loses what it
// kept; the registry sees it close, as a proxy passes the close on. Safe
// for concurrent use.
type Cut struct {
	held  atomic.Bool
	mu    sync.Mutex
	open  chan struct{} // closed while the link passes
	conns map[*cutConn]struct{}
}

// NewCut returns a Cut that lets bytes pass.
func NewCut() *Cut {
	open := make(chan struct{})
	close(open)
	return &Cut{open: open, conns: map[*cutConn]struct{}{}}
}

// Hold starts the blackhole.
func (c *Cut) Hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held.Load() {
		c.open = make(chan struct{})
		c.held.Store(true)
	}
}

// Release ends the blackhole: every connection sends what it kept, in
// order (a write that comes first sends it before its own bytes), and its
// reads go on.
func (c *Cut) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held.Load() {
		return
	}
	c.held.Store(false)
	for cc := range c.conns {
		cc.flush()
	}
	close(c.open)
}

// opened returns a channel closed once the link passes.
func (c *Cut) opened() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// waitOpen waits until the link passes or ctx ends.
func (c *Cut) waitOpen(ctx context.Context) error {
	if !c.held.Load() {
		return nil
	}
	select {
	case <-c.opened():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wrap puts conn behind the cut.
func (c *Cut) wrap(conn net.Conn) net.Conn {
	cc := &cutConn{Conn: conn, cut: c}
	c.mu.Lock()
	c.conns[cc] = struct{}{}
	c.mu.Unlock()
	return cc
}

func (c *Cut) forget(cc *cutConn) {
	c.mu.Lock()
	delete(c.conns, cc)
	c.mu.Unlock()
}

// cutConn is a connection behind a Cut.
type cutConn struct {
	net.Conn
	cut     *Cut
	mu      sync.Mutex
	out     []byte        // written while the link held
	in      []byte        // read while the link held (the read had begun before)
	pending atomic.Bool   // out or in holds bytes
	dl, wdl time.Time     // the read and write deadlines
	wake    chan struct{} // made by a waiting read, closed when dl changes or the connection closes
	closed  bool
}

// Write sends b, or keeps it while the link holds.
func (cc *cutConn) Write(b []byte) (int, error) {
	if !cc.cut.held.Load() && !cc.pending.Load() {
		return cc.Conn.Write(b)
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.cut.held.Load() {
		cc.out = append(cc.out, b...)
		cc.pending.Store(true)
		return len(b), nil
	}
	cc.flushLocked()
	return cc.Conn.Write(b)
}

// Read reads, waiting while the link holds (until it passes, the read
// deadline passes or the connection closes). Bytes that a read already
// under way got while the link held are kept for after the release.
func (cc *cutConn) Read(b []byte) (int, error) {
	for {
		if err := cc.waitPassing(); err != nil {
			return 0, err
		}
		if n, ok := cc.takeIn(b); ok {
			return n, nil
		}
		n, err := cc.Conn.Read(b)
		if n == 0 || !cc.cut.held.Load() {
			return n, err
		}
		cc.keepIn(b[:n])
	}
}

// waitPassing waits while the link holds.
func (cc *cutConn) waitPassing() error {
	for cc.cut.held.Load() {
		cc.mu.Lock()
		if cc.wake == nil {
			cc.wake = make(chan struct{})
		}
		dl, wake, closed := cc.dl, cc.wake, cc.closed
		cc.mu.Unlock()
		if closed {
			return net.ErrClosed
		}
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return os.ErrDeadlineExceeded
			}
			t := time.NewTimer(d)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-cc.cut.opened():
		case <-wake:
		case <-timeout:
			return os.ErrDeadlineExceeded
		}
	}
	return nil
}

func (cc *cutConn) takeIn(b []byte) (int, bool) {
	if !cc.pending.Load() {
		return 0, false
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if len(cc.in) == 0 {
		return 0, false
	}
	n := copy(b, cc.in)
	cc.in = cc.in[n:]
	cc.pending.Store(len(cc.in)+len(cc.out) > 0)
	return n, true
}

func (cc *cutConn) keepIn(b []byte) {
	cc.mu.Lock()
	cc.in = append(cc.in, b...)
	cc.pending.Store(true)
	cc.mu.Unlock()
}

// flush sends what was kept (the Cut releasing).
func (cc *cutConn) flush() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.flushLocked()
}

// flushLocked sends what was kept, whatever the write deadline: the bytes
// were written, as into a socket's buffer, when the deadline still lay ahead.
func (cc *cutConn) flushLocked() {
	if len(cc.out) > 0 && !cc.closed {
		_ = cc.Conn.SetWriteDeadline(time.Time{})
		_, _ = cc.Conn.Write(cc.out)
		_ = cc.Conn.SetWriteDeadline(cc.wdl)
	}
	cc.out = nil
	cc.pending.Store(len(cc.in) > 0)
}

// SetDeadline sets the socket's deadlines and the wait's.
func (cc *cutConn) SetDeadline(t time.Time) error {
	cc.mu.Lock()
	cc.dl, cc.wdl = t, t
	cc.wakeLocked()
	cc.mu.Unlock()
	return cc.Conn.SetDeadline(t)
}

// SetWriteDeadline sets the socket's write deadline.
func (cc *cutConn) SetWriteDeadline(t time.Time) error {
	cc.mu.Lock()
	cc.wdl = t
	cc.mu.Unlock()
	return cc.Conn.SetWriteDeadline(t)
}

// SetReadDeadline sets the socket's read deadline and the wait's.
func (cc *cutConn) SetReadDeadline(t time.Time) error {
	cc.setReadDeadline(t)
	return cc.Conn.SetReadDeadline(t)
}

func (cc *cutConn) setReadDeadline(t time.Time) {
	cc.mu.Lock()
	cc.dl = t
	cc.wakeLocked()
	cc.mu.Unlock()
}

// wakeLocked wakes a waiting read (it looks at the deadline again).
func (cc *cutConn) wakeLocked() {
	if cc.wake != nil {
		close(cc.wake)
		cc.wake = nil
	}
}

// Close closes the connection; what it kept is dropped.
func (cc *cutConn) Close() error {
	cc.mu.Lock()
	if !cc.closed {
		cc.closed, cc.out = true, nil
		cc.wakeLocked()
	}
	cc.mu.Unlock()
	cc.cut.forget(cc)
	return cc.Conn.Close()
}
