package fakeservice

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"sdchaos/etcdcli"
)

// RawCaller carries a LeanRegistrant's gRPC calls (H2Conn does).
type RawCaller interface {
	// Unary calls method with req and decodes the answer into resp.
	Unary(ctx context.Context, method string, req, resp proto.Message) error
	// StreamOnce sends req on a new stream of method, decodes the first
	// answer into resp and cancels the stream.
	StreamOnce(ctx context.Context, method string, req, resp proto.Message) error
}

// etcd's gRPC methods a registrant calls.
const (
	methodGrant     = "/etcdserverpb.Lease/LeaseGrant"
	methodKeepAlive = "/etcdserverpb.Lease/LeaseKeepAlive"
	methodPut       = "/etcdserverpb.KV/Put"
)

// LeanRegistrant holds one key on a lease through etcd's gRPC API directly
// (no clientv3 client, no grpc-go channel): register = LeaseGrant + Put
// with the lease; renew = one LeaseKeepAlive stream carrying one request
// and its answer, then cancelled, as clientv3's KeepAliveOnce. Its calls,
// observers and errors are those of Registrant (a call past its deadline
// is context.DeadlineExceeded, a renewal of an expired lease ErrLeaseGone,
// etcd's errors their rpctypes values), without clientv3's retries of
// calls that never reached a connection (a call dials when it has none,
// within its own deadline). Every lease it grants is tracked with
// etcdcli.Track, so that the clean-up of a cluster the harness did not
// start revokes it. Safe for concurrent use.
type LeanRegistrant struct {
	Key, Value string
	conn       RawCaller
	ttl        int64
	timeout    time.Duration
	observe    Observer
	id         atomic.Int64
}

// NewLeanRegistrant returns a registrant of key → value over conn with the
// given lease ttl (whole seconds); every call is bounded by timeout and
// reported to observe (may be nil).
func NewLeanRegistrant(conn RawCaller, key, value string, ttl, timeout time.Duration, observe Observer) *LeanRegistrant {
	if observe == nil {
		observe = func(Call, time.Time, time.Time, error) {}
	}
	return &LeanRegistrant{Key: key, Value: value, conn: conn, ttl: int64(ttl / time.Second), timeout: timeout, observe: observe}
}

// Register grants a new lease and puts the key on it.
func (r *LeanRegistrant) Register(ctx context.Context) error {
	var id int64
	err := r.call(ctx, CallGrant, func(c context.Context) error {
		var g pb.LeaseGrantResponse
		err := r.conn.Unary(c, methodGrant, &pb.LeaseGrantRequest{TTL: r.ttl}, &g)
		if err == nil && g.Error != "" {
			err = errors.New(g.Error)
		}
		id = g.ID
		return err
	})
	if err != nil {
		return fmt.Errorf("granting lease: %w", err)
	}
	etcdcli.Track(id) // on a cluster the harness did not start, revoked at its clean-up
	err = r.call(ctx, CallPut, func(c context.Context) error {
		return r.conn.Unary(c, methodPut, &pb.PutRequest{Key: []byte(r.Key), Value: []byte(r.Value), Lease: id}, &pb.PutResponse{})
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
		var resp pb.LeaseKeepAliveResponse
		if err := r.conn.StreamOnce(c, methodKeepAlive, &pb.LeaseKeepAliveRequest{ID: r.id.Load()}, &resp); err != nil {
			return err
		}
		if resp.TTL <= 0 {
			return rpctypes.ErrLeaseNotFound
		}
		return nil
	})
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		etcdcli.Forget(r.id.Load())
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
