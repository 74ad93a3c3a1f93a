package linkproxy

import (
	"net"
	"sync"
	"time"
)

// link is one proxied connection: client ↔ proxy ↔ server. The server side
// is dialled when bytes may first pass, so a connection accepted during a
// blackhole holds no server connection.
type link struct {
	p      *Proxy
	client net.Conn
	quit   chan struct{} // closed by close/reset: readers stop queueing
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
	defer l.close()
	up := l.reader(l.client) // client → server, queued from the start
	select {
	case <-l.p.gate():
	case <-l.closed(up):
		return // the client gave up while the link was blackholed
	}
	server, err := l.p.dial("tcp", l.p.target, 5*time.Second)
	if err != nil {
		reset(l.client)
		return
	}
	if !l.setServer(server) {
		reset(server)
		return
	}
	down := l.reader(server)
	done := make(chan struct{})
	go func() { defer close(done); l.writer(down, l.client) }()
	l.writer(up, server) // on this goroutine: one fewer per link
	<-done
}

// queue is one direction: its chunks, a channel closed when its reader
// ends, and what its writer delivers to.
type queue struct {
	ch  chan chunk
	eof chan struct{}
	// mu orders deliveries: a chunk is written directly by the reader only
	// when the writer has delivered every queued one (pending is 0) to dst
	// (set when the writer starts).
	mu      sync.Mutex
	dst     net.Conn
	pending int
}

// readBuf is one direction's read buffer: 4 KiB holds any request or
// answer of the experiments in one read (a longer one is queued in several
// chunks), and keeps a storm of 5000 links at 40 MiB of buffers, not 320.
const readBuf = 4 << 10

// reader reads src into a queue. While the link passes bytes without a
// delay and nothing is queued, a chunk is written straight to the
// destination (no copy, no hand-over to the writer: what a storm of
// thousands of links costs the harness); otherwise it is copied and queued
// with its delivery time.
func (l *link) reader(src net.Conn) *queue {
	q := &queue{ch: make(chan chunk, 64), eof: make(chan struct{})}
	go func() {
		defer close(q.ch)
		defer close(q.eof)
		buf := make([]byte, readBuf)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				direct, werr := l.direct(q, buf[:n])
				if werr != nil {
					l.close()
					return
				}
				if !direct && !l.enqueue(q, buf[:n]) {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return q
}

// direct writes b to q's destination when it may go at once and nothing
// is queued before it; false when b must be queued.
func (l *link) direct(q *queue, b []byte) (bool, error) {
	if !l.p.fast.Load() {
		return false, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dst == nil || q.pending > 0 || !l.p.fast.Load() {
		return false, nil
	}
	if l.isDone() {
		return true, nil
	}
	_, err := q.dst.Write(b)
	return true, err
}

// enqueue queues a copy of b with its delivery time; false when the link
// closed first.
func (l *link) enqueue(q *queue, b []byte) bool {
	q.mu.Lock()
	q.pending++
	q.mu.Unlock()
	select {
	case q.ch <- chunk{b: append([]byte(nil), b...), at: time.Now().Add(l.p.currentDelay())}:
		return true
	case <-l.quit:
		return false
	}
}

// closed returns a channel closed when q's reader has ended.
func (l *link) closed(q *queue) <-chan struct{} { return q.eof }

// writer delivers q's queued chunks to dst, each at its time and only while
// the gate is open. When its source has ended and the link is blackholed,
// the held bytes are dropped (their sender is gone), but the connection's
// close is held until the heal, as a network that loses every packet loses
// the FIN too: the other end learns of the close only once the link passes
// again (a registry that ties an instance to its connection must not see a
// crashed instance's close through a blackhole).
func (l *link) writer(q *queue, dst net.Conn) {
	defer l.close()
	q.mu.Lock()
	q.dst = dst
	q.mu.Unlock()
	for c := range q.ch {
		if d := time.Until(c.at); d > 0 {
			time.Sleep(d)
		}
		select {
		case <-l.p.gate():
		case <-q.eof:
			select {
			case <-l.p.gate():
			default:
				l.awaitPass()
				return
			}
		}
		if l.isDone() {
			return
		}
		if !deliver(q, c.b) {
			return
		}
	}
	l.awaitPass()
}

// awaitPass returns once the link passes bytes (the gate is open) or it is
// closed otherwise (the other direction ended it, the proxy closed).
func (l *link) awaitPass() {
	select {
	case <-l.p.gate():
	case <-l.quit:
	}
}

// deliver writes one queued chunk to q's destination; false on an error.
func deliver(q *queue, b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending--
	_, err := q.dst.Write(b)
	return err == nil
}

func (l *link) setServer(s net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return false
	}
	l.server = s
	return true
}

func (l *link) isDone() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done
}

func (l *link) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.finish()
	_ = l.client.Close()
	if l.server != nil {
		_ = l.server.Close()
	}
}

func (l *link) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.finish()
	reset(l.client)
	if l.server != nil {
		reset(l.server)
	}
}

// finish marks the link done and stops its readers; l.mu is held.
func (l *link) finish() {
	if !l.done {
		l.done = true
		close(l.quit)
	}
}
