package cluster

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// MemberProbe lists and registers through one member only: the members
// probe of every world built on etcd asks each member with one of these, so
// that its ops say which member answered what.
type MemberProbe struct {
	cli         *clientv3.Client
	prefix, key string
	ttl         time.Duration
}

// DialMemberProbe opens a probe bound to the member at url (dialing never
// blocks past dial; its client logs nothing): List counts the keys under
// prefix, Register puts key on a lease of ttl.
func DialMemberProbe(url string, dial time.Duration, prefix, key string, ttl time.Duration) (*MemberProbe, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: dial, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("a client bound to %s: %w", url, err)
	}
	return &MemberProbe{cli: cli, prefix: prefix, key: key, ttl: ttl}, nil
}

// List counts the keys under the prefix: a linearizable read, as clientv3
// reads by default.
func (p *MemberProbe) List(ctx context.Context) (int, error) {
	resp, err := p.cli.Get(ctx, p.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return int(resp.Count), nil
}

// Register grants a lease and puts the probe's key on it, the write path of
// an instance's registration.
func (p *MemberProbe) Register(ctx context.Context) (int, error) {
	lease, err := p.cli.Grant(ctx, int64(p.ttl/time.Second))
	if err != nil {
		return 0, err
	}
	_, err = p.cli.Put(ctx, p.key, "probe", clientv3.WithLease(lease.ID))
	return 1, err
}

// Close closes the probe's client.
func (p *MemberProbe) Close() { _ = p.cli.Close() }
