package dns

import (
	"fmt"
	"net"
	"sync"
)

// tcpRelay is the relay's TCP side, on the same port: a truncated answer's
// retry over TCP (a long SRV list does not fit in a UDP answer) takes it.
// Each accepted connection is piped to the server's TCP port; while the
// relay is held, the bytes read on either side are dropped (the
// connection stays open, as a blackhole holds it).
type tcpRelay struct {
	r     *Relay
	ln    net.Listener
	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// startTCP listens on the relay's address.
func (r *Relay) startTCP() error {
	ln, err := net.Listen("tcp", r.Addr())
	if err != nil {
		return fmt.Errorf("relay %s: listening on TCP: %w", r.Name, err)
	}
	t := &tcpRelay{r: r, ln: ln, conns: map[net.Conn]bool{}}
	r.tcp = t
	t.wg.Add(1)
	go t.serve()
	return nil
}

func (t *tcpRelay) serve() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return // closed
		}
		up, err := net.Dial("tcp", t.r.Server)
		if err != nil {
			_ = c.Close()
			continue
		}
		if !t.track(c, up) {
			return
		}
		t.wg.Add(2)
		go t.pipe(up, c)
		go t.pipe(c, up)
	}
}

// track remembers a pair of connections for close; false once closing.
func (t *tcpRelay) track(cs ...net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		t.conns[c] = true
	}
	return true
}

// pipe copies from src to dst, dropping what it reads while held; either
// side's end closes both.
func (t *tcpRelay) pipe(dst, src net.Conn) {
	defer t.wg.Done()
	defer func() { _ = dst.Close(); _ = src.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !t.r.Held() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// close stops accepting and closes every connection.
func (t *tcpRelay) close() {
	_ = t.ln.Close()
	t.mu.Lock()
	for c := range t.conns {
		_ = c.Close()
	}
	t.conns = nil
	t.mu.Unlock()
	t.wg.Wait()
}
