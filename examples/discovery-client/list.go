package main

import (
	"context"
	"sync"
	"time"
)

// lister reads the instances' addresses (host:port) from one registry.
type lister interface {
	// list reads the instances once; ctx bounds the read.
	list(ctx context.Context) ([]string, error)
	// close releases the registry client.
	close()
}

// refreshTimeout bounds one read of the registry.
const refreshTimeout = 500 * time.Millisecond

// list is the cached instance list, kept when a refresh fails.
type list struct {
	mu    sync.Mutex
	addrs []string
	next  int
}

// refresh reads the instances once and keeps them, or keeps the old list
// when the read fails.
func (l *list) refresh(ctx context.Context, r lister) {
	c, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	addrs, err := r.list(c)
	if err != nil {
		return // keep the old list
	}
	l.mu.Lock()
	l.addrs = addrs
	l.mu.Unlock()
}

// refreshEvery refreshes the list every second until ctx ends.
func (l *list) refreshEvery(ctx context.Context, r lister) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.refresh(ctx, r)
		}
	}
}

// pick returns the next instance, round-robin.
func (l *list) pick() (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.addrs) == 0 {
		return "", false
	}
	l.next++
	return l.addrs[l.next%len(l.addrs)], true
}
