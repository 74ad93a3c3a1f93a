package fakeservice

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/ports"
)

// TestLeanRegistrant runs against a real one-member etcd: register puts
// the key on a fresh lease, renew keeps it, a revoked lease is
// ErrLeaseGone, and a dead endpoint is a timeout (context.DeadlineExceeded)
// as with clientv3; every call reaches the observer.
func TestLeanRegistrant(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd")
	}
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	alloc := ports.New(12900, "--port-base")
	cc := cluster.DefaultConfig()
	cc.Size = 1
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, sup, alloc, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := NewH2Conn(c.Endpoints()[0])
	defer conn.Close()
	var calls []Call
	r := NewLeanRegistrant(conn, "/svc/lean/1", "v", 5*time.Second, 2*time.Second, func(c Call, _, _ time.Time, _ error) { calls = append(calls, c) })
	if err := r.Register(ctx); err != nil {
		t.Fatal(err)
	}
	cli, _ := c.Client()
	defer cli.Close()
	resp, err := cli.Get(ctx, r.Key)
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].Lease != r.id.Load() {
		t.Fatalf("registration: %v %v", resp, err)
	}
	if err := r.Renew(ctx); err != nil {
		t.Fatalf("renew: %v", err)
	}
	// More answers than etcd's 64 KiB connection window holds: the batched
	// WINDOW_UPDATEs must keep it open (else etcd stalls and a call times out).
	for i := 0; i < 3000; i++ {
		if err := r.Renew(ctx); err != nil {
			t.Fatalf("renewal %d: %v", i+2, err)
		}
	}
	calls = calls[:3]
	if _, err := cli.Revoke(ctx, clientv3.LeaseID(r.id.Load())); err != nil {
		t.Fatal(err)
	}
	if err := r.Renew(ctx); !errors.Is(err, ErrLeaseGone) {
		t.Fatalf("renew of a revoked lease: %v, want ErrLeaseGone", err)
	}
	if len(calls) != 4 || calls[0] != CallGrant || calls[1] != CallPut || calls[3] != CallRenew {
		t.Errorf("observed %v", calls)
	}
	dead := NewH2Conn("http://127.0.0.1:12999") // nothing listens there
	defer dead.Close()
	r2 := NewLeanRegistrant(dead, "/svc/lean/2", "v", 5*time.Second, 300*time.Millisecond, nil)
	if err := r2.Register(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("register on a dead endpoint: %v, want a timeout", err)
	}
}

// TestH2ConnSilentServerIsATimeout: a server that accepts and never answers
// makes the call a timeout (context.DeadlineExceeded), however the
// connection's deadline and the context's timer race.
func TestH2ConnSilentServerIsATimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	conn := NewH2Conn(ln.Addr().String())
	defer conn.Close()
	for i := 0; i < 20; i++ {
		r := NewLeanRegistrant(conn, "/svc/silent", "v", 5*time.Second, 20*time.Millisecond, nil)
		if err := r.Register(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d to a silent server: %v, want a timeout", i, err)
		}
	}
}
