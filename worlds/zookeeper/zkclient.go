package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path"
	"time"

	"github.com/go-zookeeper/zk"
)

// quiet discards go-zookeeper's own log lines (its state changes are events).
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// dial connects a Go client to servers with the given session timeout through
// dialer (nil: plain TCP) and waits until it has a session (or ctx ends).
func dial(ctx context.Context, servers []string, session time.Duration, dialer zk.Dialer) (*zk.Conn, <-chan zk.Event, error) {
	if dialer == nil {
		dialer = net.DialTimeout
	}
	conn, events, err := zk.Connect(servers, session, zk.WithLogger(quiet{}), zk.WithLogInfo(false), zk.WithDialer(dialer))
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %v: %w", servers, err)
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, nil, fmt.Errorf("connecting to %v: client closed", servers)
			}
			if ev.State == zk.StateHasSession {
				return conn, events, nil
			}
		case <-ctx.Done():
			conn.Close()
			return nil, nil, fmt.Errorf("connecting to %v: no session: %w", servers, ctx.Err())
		}
	}
}

// drain reads a connection's events until it closes (nobody else reads them).
func drain(events <-chan zk.Event) {
	go func() {
		for range events {
		}
	}()
}

// ErrCallTimeout is returned (wrapped) by a ZooKeeper call that got no answer
// within its deadline (go-zookeeper queues requests while disconnected and has
// no deadline of its own).
var ErrCallTimeout = errors.New("zookeeper call timed out")

// within runs f and returns its error, or ErrCallTimeout when ctx ends first
// (f keeps running and its result is dropped).
func within(ctx context.Context, what string, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w: %w", what, ErrCallTimeout, ctx.Err())
	}
}

// ensurePath creates every missing node of p (persistent, empty), as
// Curator's creatingParentsIfNeeded does.
func ensurePath(ctx context.Context, conn *zk.Conn, p string) error {
	if p == "/" || p == "" {
		return nil
	}
	if err := ensurePath(ctx, conn, path.Dir(p)); err != nil {
		return err
	}
	return within(ctx, "creating "+p, func() error {
		_, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll))
		if errors.Is(err, zk.ErrNodeExists) {
			return nil
		}
		return err
	})
}

// deleteTree deletes p and everything below it; a missing node is no error.
func deleteTree(ctx context.Context, conn *zk.Conn, p string) error {
	var kids []string
	err := within(ctx, "listing "+p, func() error {
		var err error
		kids, _, err = conn.Children(p)
		return err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := deleteTree(ctx, conn, path.Join(p, k)); err != nil {
			return err
		}
	}
	err = within(ctx, "deleting "+p, func() error { return conn.Delete(p, -1) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// exists reports whether node p exists.
func exists(ctx context.Context, conn *zk.Conn, p string) (bool, error) {
	var ok bool
	err := within(ctx, "reading "+p, func() error {
		var err error
		ok, _, err = conn.Exists(p)
		return err
	})
	return ok, err
}
