package zookeeper

import (
	"errors"
	"fmt"
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

// dialLearner opens a quorum link's connection to the leader's quorum port
// as the learner itself would (LearnerConnectTries tries,
// LearnerConnectRetryDelay apart, within timeout). The link accepted the
// learner's connect before dialing: were a refused dial answered by the
// link's reset, the learner would read a reset on a connection it thinks
// open and give up at once, without the tries ZooKeeper gives it
// (Learner.java:413-457). It returns the last dial's error, wrapped.
func dialLearner(network, addr string, timeout time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(timeout)
	var err error
	for try := 1; ; try++ {
		var c net.Conn
		if c, err = net.DialTimeout(network, addr, time.Until(deadline)); err == nil {
			return c, nil
		}
		if try == LearnerConnectTries || time.Until(deadline) <= LearnerConnectRetryDelay {
			return nil, fmt.Errorf("connecting to the leader at %s (try %d of %d): %w", addr, try, LearnerConnectTries, err)
		}
		time.Sleep(LearnerConnectRetryDelay)
	}
}
