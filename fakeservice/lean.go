package fakeservice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
)

// DialLean returns one lazily dialled gRPC connection to an etcd endpoint
// ("http://host:port" or "host:port") for LeanRegistrants: the same
// keep-alive (2 s, 2 s), reconnect back-off (capped at 1 s) and connect
// timeout (20 s) as the harness's etcd clients (package etcdcli), calls
// that wait for the connection to be ready until their deadline (as
// clientv3's default), and small transport buffers (4 KiB instead of
// 32 KiB each way: a registrant's messages are tens of bytes).
func DialLean(endpoint string) (*grpc.ClientConn, error) {
	target := "passthrough:///" + strings.TrimPrefix(strings.TrimPrefix(endpoint, "http://"), "https://")
	cc, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 2 * time.Second, Timeout: 2 * time.Second}),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 20 * time.Second,
		}),
		grpc.WithReadBufferSize(4<<10), grpc.WithWriteBufferSize(4<<10),
		grpc.WithDefaultCallOptions(grpc.WaitForReady(true)))
	if err != nil {
		return nil, fmt.Errorf("dialling %s: %w", endpoint, err)
	}
	return cc, nil
}

// LeanRegistrant holds one key on a lease through etcd's gRPC API directly
// (no clientv3 client): register = LeaseGrant + Put with the lease; renew
// = one LeaseKeepAlive stream carrying one request and its answer, as
// clientv3's KeepAliveOnce. Its calls, observers and errors are those of
// Registrant (a call past its deadline is context.DeadlineExceeded, a
// renewal of an expired lease ErrLeaseGone), without clientv3's retries
// of calls that never reached a connection (calls wait for a ready one
// instead). Safe for concurrent use.
type LeanRegistrant struct {
	Key, Value string
	lease      pb.LeaseClient
	kv         pb.KVClient
	ttl        int64
	timeout    time.Duration
	observe    Observer
	id         atomic.Int64
}

// NewLeanRegistrant returns a registrant of key → value over cc with the
// given lease ttl (whole seconds); every call is bounded by timeout and
// reported to observe (may be nil).
func NewLeanRegistrant(cc grpc.ClientConnInterface, key, value string, ttl, timeout time.Duration, observe Observer) *LeanRegistrant {
	if observe == nil {
		observe = func(Call, time.Time, time.Time, error) {}
	}
	return &LeanRegistrant{Key: key, Value: value, lease: pb.NewLeaseClient(cc), kv: pb.NewKVClient(cc),
		ttl: int64(ttl / time.Second), timeout: timeout, observe: observe}
}

// Register grants a new lease and puts the key on it.
func (r *LeanRegistrant) Register(ctx context.Context) error {
	var id int64
	err := r.call(ctx, CallGrant, func(c context.Context) error {
		g, err := r.lease.LeaseGrant(c, &pb.LeaseGrantRequest{TTL: r.ttl})
		if err == nil {
			id = g.ID
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("granting lease: %w", err)
	}
	err = r.call(ctx, CallPut, func(c context.Context) error {
		_, err := r.kv.Put(c, &pb.PutRequest{Key: []byte(r.Key), Value: []byte(r.Value), Lease: id})
		return err
	})
	if err != nil {
		return fmt.Errorf("putting %s: %w", r.Key, err)
	}
	r.id.Store(id)
	return nil
}

// Renew sends one keep-alive for the current lease on its own stream.
func (r *LeanRegistrant) Renew(ctx context.Context) error {
	err := r.call(ctx, CallRenew, func(c context.Context) error {
		c, cancel := context.WithCancel(c)
		defer cancel() // ends the stream, as KeepAliveOnce does
		s, err := r.lease.LeaseKeepAlive(c)
		if err != nil {
			return err
		}
		if err := s.Send(&pb.LeaseKeepAliveRequest{ID: r.id.Load()}); err != nil {
			return err
		}
		resp, err := s.Recv()
		if err != nil {
			return err
		}
		if resp.TTL <= 0 {
			return rpctypes.ErrLeaseNotFound
		}
		return nil
	})
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("renewing %s: %w", r.Key, ErrLeaseGone)
	}
	if err != nil {
		return fmt.Errorf("renewing %s: %w", r.Key, err)
	}
	return nil
}

func (r *LeanRegistrant) call(ctx context.Context, name Call, f func(context.Context) error) error {
	c, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	start := time.Now()
	err := toErr(c, f(c))
	r.observe(name, start, time.Now(), err)
	return err
}

// toErr maps a gRPC error as clientv3 does: etcd's own errors to their
// rpctypes values, and a deadline or cancellation to the context's error
// when the context ended.
func toErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	err = rpctypes.Error(err)
	if _, ok := err.(rpctypes.EtcdError); ok {
		return err
	}
	if s, ok := status.FromError(err); ok && (s.Code() == codes.DeadlineExceeded || s.Code() == codes.Canceled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
