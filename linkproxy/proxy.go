// Package linkproxy is a TCP fault proxy on loopback: clients connect to the
// proxy instead of the server, and the harness breaks the link between them.
//
// Modes:
//   - pass: bytes flow both ways (optionally delayed by Delay).
//   - blackhole: connections stay open and new ones are accepted, but no byte
//     passes either way. Bytes are held back, never dropped, so a stream's
//     framing stays intact (dropping bytes mid-stream corrupts HTTP/2 and
//     gRPC framing, the pitfall of etcd's pkg/proxy): to the endpoints it
//     looks like packet loss that TCP retransmission later repairs, and
//     whatever a side sent is delivered once the link heals.
//   - reject: the listener is closed (new connections are refused by the
//     kernel) and every open connection is reset (RST).
//
// It listens on 127.0.0.1 only.
package linkproxy

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"sdchaos/netns"
)

// Mode is the state of the link.
type Mode int

const (
	// Pass forwards bytes (after the configured delay).
	Pass Mode = iota
	// Blackhole holds every byte back; connections stay open.
	Blackhole
	// Reject refuses new connections and resets open ones.
	Reject
)

// String names the mode.
func (m Mode) String() string {
	return [...]string{"pass", "blackhole", "reject"}[m]
}

// Proxy forwards connections from its loopback address to a target.
// Safe for concurrent use.
type Proxy struct {
	addr, target string
	// dial opens the server side of a link (net.DialTimeout unless NewDial).
	dial Dialer

	mu    sync.Mutex
	ln    net.Listener
	mode  Mode
	delay time.Duration
	open  chan struct{} // closed while bytes may pass
	// fast is true while bytes pass without a delay (mode Pass, delay 0):
	// a link's reader may then write straight through.
	fast   atomic.Bool
	conns  map[*link]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Dialer opens the server side of a link: a TCP connection to addr within
// timeout (net.DialTimeout's signature), or a wrapper of one that changes
// what the client sends (a NAT rewriting an address in a handshake).
type Dialer func(network, addr string, timeout time.Duration) (net.Conn, error)

// New listens on listenAddr (a 127.0.0.1 address, or a member's in a private network namespace:
// listenable) and forwards to target.
func New(listenAddr, target string) (*Proxy, error) {
	return NewDial(listenAddr, target, net.DialTimeout)
}

// listenable reports whether a proxy may listen on addr: 127.0.0.1, or an address of
// netns.MemberNet, which only a private network namespace routes (a "local" route on its own
// loopback): never an address another host can reach.
func listenable(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && (a == netip.AddrFrom4([4]byte{127, 0, 0, 1}) || netns.MemberNet.Contains(a))
}

// NewDial is New with the server side of every link opened by dial.
func NewDial(listenAddr, target string, dial Dialer) (*Proxy, error) {
	if !listenable(listenAddr) {
		return nil, fmt.Errorf("linkproxy: listen address %q must be 127.0.0.1:<port>, or a member's 198.18.0.N:<port> in a private network namespace", listenAddr)
	}
	ln, err := net.Listen("tcp", listenAddr)
	if err != nil {
		return nil, fmt.Errorf("linkproxy: listening on %s: %w", listenAddr, err)
	}
	p := &Proxy{addr: listenAddr, target: target, dial: dial, ln: ln, open: make(chan struct{}), conns: map[*link]struct{}{}}
	close(p.open)
	p.fast.Store(true)
	p.serve(ln)
	return p, nil
}

// Addr returns the proxy's listen address.
func (p *Proxy) Addr() string { return p.addr }

// Target returns the address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Mode returns the current mode.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Conns returns the number of open proxied connections.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

func (p *Proxy) serve(ln net.Listener) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				// Out of file descriptors and the like: keep serving.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			p.accept(c)
		}
	}()
}

func (p *Proxy) accept(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.mode == Reject {
		reset(c)
		return
	}
	l := &link{p: p, client: c, quit: make(chan struct{})}
	p.conns[l] = struct{}{}
	p.wg.Add(1)
	go func() { defer p.wg.Done(); l.run() }()
}

// Blackhole makes every byte wait until the link heals.
func (p *Proxy) Blackhole() error { return p.setMode(Blackhole) }

// Reject refuses new connections and resets the open ones.
func (p *Proxy) Reject() error { return p.setMode(Reject) }

// Heal lets bytes pass again (and accepts connections again after Reject).
func (p *Proxy) Heal() error { return p.setMode(Pass) }

// Delay adds d to every byte's trip in each direction (0 removes it).
// Order is kept: a chunk is never overtaken by a later one.
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.fast.Store(p.mode == Pass && d == 0)
	p.mu.Unlock()
}

func (p *Proxy) currentDelay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
}

// gate returns a channel that is closed while bytes may pass.
func (p *Proxy) gate() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// ErrClosed is returned by mode changes after Close.
var ErrClosed = errors.New("linkproxy: closed")

func (p *Proxy) setMode(m Mode) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	if m == p.mode {
		return nil
	}
	prev := p.mode
	p.mode = m
	p.fast.Store(m == Pass && p.delay == 0)
	if m == Pass {
		close(p.open)
	} else if prev == Pass {
		p.open = make(chan struct{})
	}
	if m == Reject {
		p.ln.Close()
		for l := range p.conns {
			l.reset()
		}
	}
	if prev == Reject {
		ln, err := net.Listen("tcp", p.addr)
		if err != nil {
			return fmt.Errorf("linkproxy: listening again on %s: %w", p.addr, err)
		}
		p.ln = ln
		p.serve(ln)
	}
	return nil
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.ln.Close()
	for l := range p.conns {
		l.close()
	}
	if p.mode != Pass {
		close(p.open) // release waiting pumps
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

func (p *Proxy) forget(l *link) {
	p.mu.Lock()
	delete(p.conns, l)
	p.mu.Unlock()
}

// reset closes c with SO_LINGER 0, so the peer gets RST.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
