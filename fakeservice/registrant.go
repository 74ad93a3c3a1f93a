package fakeservice

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Call names a registry call, for observers.
type Call string

// The registry calls a registrant makes.
const (
	CallGrant Call = "grant"
	CallPut   Call = "put"
	CallRenew Call = "renew"
)

// Observer is told about every registry call a registrant makes.
type Observer func(call Call, start, end time.Time, err error)

// Registrant holds one key in the registry on a lease: register = grant a
// lease and put the key on it; renew = one KeepAliveOnce. It has no server
// of its own (an Instance adds one). Safe for concurrent use.
type Registrant struct {
	Key, Value string
	cli        *clientv3.Client
	ttl        time.Duration
	timeout    time.Duration
	observe    Observer
	lease      atomic.Int64
	regs       atomic.Int64
}

// NewRegistrant returns a registrant of key → value on cli with the given
// lease ttl; every call is bounded by timeout and reported to observe (may be nil).
func NewRegistrant(cli *clientv3.Client, key, value string, ttl, timeout time.Duration, observe Observer) *Registrant {
	if observe == nil {
		observe = func(Call, time.Time, time.Time, error) {}
	}
	return &Registrant{Key: key, Value: value, cli: cli, ttl: ttl, timeout: timeout, observe: observe}
}

// Lease returns the current lease id.
func (r *Registrant) Lease() clientv3.LeaseID { return clientv3.LeaseID(r.lease.Load()) }

// Registrations returns how many times the key was registered.
func (r *Registrant) Registrations() int64 { return r.regs.Load() }

// Register grants a new lease and puts the key on it.
func (r *Registrant) Register(ctx context.Context) error {
	var id clientv3.LeaseID
	err := r.call(ctx, CallGrant, func(c context.Context) error {
		g, err := r.cli.Grant(c, int64(r.ttl/time.Second))
		if err == nil {
			id = g.ID
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("granting lease: %w", err)
	}
	err = r.call(ctx, CallPut, func(c context.Context) error {
		_, err := r.cli.Put(c, r.Key, r.Value, clientv3.WithLease(id))
		return err
	})
	if err != nil {
		return fmt.Errorf("putting %s: %w", r.Key, err)
	}
	r.lease.Store(int64(id))
	r.regs.Add(1)
	return nil
}

// ErrLeaseGone is returned (wrapped) by Renew when the lease no longer exists.
var ErrLeaseGone = errors.New("lease gone")

// Renew sends one KeepAliveOnce for the current lease.
func (r *Registrant) Renew(ctx context.Context) error {
	err := r.call(ctx, CallRenew, func(c context.Context) error {
		_, err := r.cli.KeepAliveOnce(c, r.Lease())
		return err
	})
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("renewing %s: %w", r.Key, ErrLeaseGone)
	}
	if err != nil {
		return fmt.Errorf("renewing %s: %w", r.Key, err)
	}
	return nil
}

func (r *Registrant) call(ctx context.Context, name Call, f func(context.Context) error) error {
	c, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	start := time.Now()
	err := f(c)
	r.observe(name, start, time.Now(), err)
	return err
}
