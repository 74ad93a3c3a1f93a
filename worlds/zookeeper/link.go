package zookeeper

import (
	"errors"
	"net"
	"sync"
	"time"
)

// errCut is what a cut link's dialer answers.
var errCut = errors.New("link cut by the harness")

// cutDialer dials plain TCP until cutNow, which closes every connection it
// made and refuses new ones until heal.
type cutDialer struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func (d *cutDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		return nil, errCut
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *cutDialer) cutNow() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cut = true
	for _, c := range d.conns {
		_ = c.Close()
	}
	d.conns = nil
}

func (d *cutDialer) heal() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cut = false
}
