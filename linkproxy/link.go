package linkproxy

import (
	"net"
	"sync"
	"time"
)

// link is one proxied connection: client ↔ proxy ↔ server.
type link struct {
	p      *Proxy
	client net.Conn
	mu     sync.Mutex
	server net.Conn
	done   bool
}

// chunk is a piece of the byte stream and when it may be delivered.
type chunk struct {
	b  []byte
	at time.Time
}

func (l *link) run() {
	defer l.p.forget(l)
	server, err := net.DialTimeout("tcp", l.p.target, 5*time.Second)
	if err != nil {
		reset(l.client)
		return
	}
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		reset(server)
		return
	}
	l.server = server
	l.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); l.pump(l.client, server) }()
	go func() { defer wg.Done(); l.pump(server, l.client) }()
	wg.Wait()
	l.close()
}

// pump copies src → dst through a queue: the reader stamps each chunk with
// its delivery time; the writer waits for that time and for the gate.
func (l *link) pump(src, dst net.Conn) {
	q := make(chan chunk, 64)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{b: buf[:n], at: time.Now().Add(l.p.currentDelay())}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		if d := time.Until(c.at); d > 0 {
			time.Sleep(d)
		}
		<-l.p.gate()
		if l.isDone() {
			break
		}
		if _, err := dst.Write(c.b); err != nil {
			break
		}
	}
	// One direction ended: end both, as a TCP proxy does.
	l.close()
	for range q {
	}
}

func (l *link) isDone() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done
}

func (l *link) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	_ = l.client.Close()
	if l.server != nil {
		_ = l.server.Close()
	}
}

func (l *link) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	reset(l.client)
	if l.server != nil {
		reset(l.server)
	}
}
