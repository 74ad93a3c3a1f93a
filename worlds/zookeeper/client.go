package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Client is a Go ZooKeeper client of the run (a policy caller reading the
// instance list, a probe pinned to one member) on its own session; every
// call is bounded by its context and names the chroot-relative path it
// used. Safe for concurrent use.
type Client struct {
	conn   *zk.Conn
	chroot string
}

// ErrNoSession is returned (wrapped) when a client got no session within
// its context.
var ErrNoSession = errors.New("no ZooKeeper session")

// NewClient starts a client of servers (it connects in the background, in
// go-zookeeper's random order of servers) asking for the session timeout
// session; paths are relative to chroot. It returns at once.
func NewClient(servers []string, chroot string, session time.Duration) (*Client, error) {
	conn, events, err := zk.Connect(servers, session, zk.WithLogger(quiet{}), zk.WithLogInfo(false), zk.WithDialer(net.DialTimeout))
	if err != nil {
		return nil, fmt.Errorf("zookeeper client of %v: %w", servers, err)
	}
	drain(events)
	return &Client{conn: conn, chroot: chroot}, nil
}

// WaitSession returns once the client has a session, or ErrNoSession when
// ctx ends first.
func (c *Client) WaitSession(ctx context.Context) error {
	for c.conn.State() != zk.StateHasSession {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (state %s): %w", ErrNoSession, c.conn.State(), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// SessionID returns the current session's id (0 while there is none).
func (c *Client) SessionID() int64 { return c.conn.SessionID() }

// Instances reads the instances of service under basePath as Curator's
// ServiceDiscoveryImpl.queryForInstances does: the service node's children,
// then each child's data (asked at once: go-zookeeper pipelines them; a
// child gone meanwhile is skipped), sorted by id.
func (c *Client) Instances(ctx context.Context, basePath, service string) ([]ServiceInstance, error) {
	dir := path.Join(c.chroot, ServicePath(basePath, service))
	var kids []string
	err := within(ctx, "listing "+dir, func() error {
		var err error
		kids, _, err = c.conn.Children(dir)
		return err
	})
	if err != nil {
		return nil, err
	}
	datas := make([][]byte, len(kids))
	errs := make([]error, len(kids))
	var wg sync.WaitGroup
	for i, k := range kids {
		wg.Go(func() {
			errs[i] = within(ctx, "reading "+path.Join(dir, k), func() error {
				var err error
				datas[i], _, err = c.conn.Get(path.Join(dir, k))
				return err
			})
		})
	}
	wg.Wait()
	out := make([]ServiceInstance, 0, len(kids))
	for i := range kids {
		if errors.Is(errs[i], zk.ErrNoNode) {
			continue
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		si, err := ParseServiceInstance(datas[i])
		if err != nil {
			return nil, err
		}
		out = append(out, si)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Count returns how many instances of service under basePath the member
// the client is connected to lists: the service node's children (none when
// that node is missing).
func (c *Client) Count(ctx context.Context, basePath, service string) (int, error) {
	dir := path.Join(c.chroot, ServicePath(basePath, service))
	n := 0
	err := within(ctx, "listing "+dir, func() error {
		kids, _, err := c.conn.Children(dir)
		n = len(kids)
		return err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil
	}
	return n, err
}

// CreateEphemeral creates p (chroot-relative) as an ephemeral node of the
// client's session holding data, with its missing parents (persistent).
func (c *Client) CreateEphemeral(ctx context.Context, p string, data []byte) error {
	full := path.Join(c.chroot, p)
	if err := ensurePath(ctx, c.conn, path.Dir(full)); err != nil {
		return err
	}
	return within(ctx, "creating "+full, func() error {
		_, err := c.conn.Create(full, data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		return err
	})
}

// Write sets p's data (chroot-relative), creating p (persistent) when it is
// missing: a write the leader must commit with a quorum.
func (c *Client) Write(ctx context.Context, p string, data []byte) error {
	full := path.Join(c.chroot, p)
	err := within(ctx, "writing "+full, func() error {
		_, err := c.conn.Set(full, data, -1)
		return err
	})
	if !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	if err := ensurePath(ctx, c.conn, path.Dir(full)); err != nil {
		return err
	}
	return within(ctx, "creating "+full, func() error {
		_, err := c.conn.Create(full, data, 0, zk.WorldACL(zk.PermAll))
		if errors.Is(err, zk.ErrNodeExists) { // an earlier write created it meanwhile
			_, err = c.conn.Set(full, data, -1)
		}
		return err
	})
}

// Close ends the client's session (its ephemeral nodes go at once).
func (c *Client) Close() { c.conn.Close() }

// RegisterOnce registers the way a new instance does, through server alone:
// a new session (the leader commits it), then an ephemeral node p
// (chroot-relative) with data; the session is closed after (its node goes
// with it). It returns the first error, or ErrNoSession when ctx ended
// before the session came.
func RegisterOnce(ctx context.Context, server, chroot, p string, data []byte, session time.Duration) error {
	c, err := NewClient([]string{server}, chroot, session)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.WaitSession(ctx); err != nil {
		return err
	}
	return c.CreateEphemeral(ctx, p, data)
}
