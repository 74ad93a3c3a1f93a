package dns

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"sdchaos/ports"
)

// Relay is the clients' path to one DNS server: a UDP relay on its own
// loopback port that passes every datagram to the server and every reply
// back, through one upstream socket per client socket (Go's resolver opens
// a socket per query), and on the same port TCP connections (a truncated
// answer's retry) to the server's TCP port. Held, it drops every datagram
// and every byte both ways: a blackhole, the queries lost as under heavy
// packet loss.
type Relay struct {
	// Name labels it ("dns-plain"); Server is the server it relays to.
	Name, Server string
	ln           *net.UDPConn
	held         atomic.Bool
	mu           sync.Mutex
	ups          map[string]*net.UDPConn
	closed       bool
	wg           sync.WaitGroup
	tcp          *tcpRelay
}

// relayIdle closes an upstream socket that saw no reply for this long.
const relayIdle = 10 * time.Second

// StartRelay listens on a port from alloc and relays to server.
func StartRelay(alloc *ports.Allocator, name, server string) (*Relay, error) {
	port, err := alloc.Take("DNS relay " + name)
	if err != nil {
		return nil, err
	}
	laddr, err := net.ResolveUDPAddr("udp", ports.Addr(port))
	if err != nil {
		return nil, fmt.Errorf("relay %s: %w", name, err)
	}
	ln, err := net.ListenUDP("udp", laddr)
	if err != nil {
		return nil, fmt.Errorf("relay %s: listening: %w", name, err)
	}
	r := &Relay{Name: name, Server: server, ln: ln, ups: map[string]*net.UDPConn{}}
	if err := r.startTCP(); err != nil {
		_ = ln.Close()
		return nil, err
	}
	r.wg.Add(1)
	go r.serve()
	return r, nil
}

// Addr returns the relay's address, the one the clients dial.
func (r *Relay) Addr() string { return r.ln.LocalAddr().String() }

// Hold drops every datagram from now on.
func (r *Relay) Hold() { r.held.Store(true) }

// Release lets datagrams pass again.
func (r *Relay) Release() { r.held.Store(false) }

// Held reports whether the relay drops datagrams.
func (r *Relay) Held() bool { return r.held.Load() }

func (r *Relay) serve() {
	defer r.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, from, err := r.ln.ReadFromUDP(buf)
		if err != nil {
			return // closed
		}
		if r.held.Load() {
			continue
		}
		up, err := r.upstream(from)
		if err != nil {
			continue // closing
		}
		_, _ = up.Write(buf[:n])
	}
}

// upstream returns the socket that carries from's queries, dialing it on
// first use.
func (r *Relay) upstream(from *net.UDPAddr) (*net.UDPConn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, net.ErrClosed
	}
	if up, ok := r.ups[from.String()]; ok {
		return up, nil
	}
	raddr, err := net.ResolveUDPAddr("udp", r.Server)
	if err != nil {
		return nil, err
	}
	up, err := net.DialUDP("udp", nil, raddr)
	if err != nil {
		return nil, err
	}
	r.ups[from.String()] = up
	r.wg.Add(1)
	go r.replies(from, up)
	return up, nil
}

// replies passes the server's replies on up back to from, until the
// socket idles or closes.
func (r *Relay) replies(from *net.UDPAddr, up *net.UDPConn) {
	defer r.wg.Done()
	defer r.drop(from, up)
	buf := make([]byte, 64<<10)
	for {
		_ = up.SetReadDeadline(time.Now().Add(relayIdle))
		n, err := up.Read(buf)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			return
		case err != nil && !errors.Is(err, net.ErrClosed):
			continue // an ICMP refusal from a killed server: keep the socket
		case err != nil:
			return
		}
		if !r.held.Load() {
			_, _ = r.ln.WriteToUDP(buf[:n], from)
		}
	}
}

func (r *Relay) drop(from *net.UDPAddr, up *net.UDPConn) {
	r.mu.Lock()
	if r.ups[from.String()] == up {
		delete(r.ups, from.String())
	}
	r.mu.Unlock()
	_ = up.Close()
}

// Close stops the relay and closes every socket it opened.
func (r *Relay) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	for _, up := range r.ups {
		_ = up.Close()
	}
	r.mu.Unlock()
	_ = r.ln.Close()
	r.tcp.close()
	r.wg.Wait()
}
