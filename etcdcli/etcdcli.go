// Package etcdcli creates the harness's etcd clients: silent logger, lazy
// dialing, keep-alive pings so a dead connection is noticed within seconds,
// and a reconnect back-off capped at 1 s. gRPC's default back-off grows to
// 120 s, so after a long link fault a client could stay disconnected for
// minutes after the fault ended; the harness's clients must recover by
// themselves within a few seconds (every call also has its own deadline).
// The connect timeout stays gRPC's 20 s: a shorter one makes clients give up
// handshakes that are merely slow under load, and at 5000 clients a third of
// them never got connected again.
package etcdcli

import (
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// New returns a client for endpoints. Dialing never blocks; every call must
// carry its own deadline.
func New(endpoints ...string) (*clientv3.Client, error) {
	return newClient(endpoints, Current(), true)
}

// newClient creates a client with s's credentials, confined to its
// namespace when confined.
func newClient(endpoints []string, s Settings, confined bool) (*clientv3.Client, error) {
	cfg := clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          2 * time.Second,
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		Logger:               zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 20 * time.Second,
		})},
	}
	s.apply(&cfg)
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating etcd client for %v: %w", endpoints, err)
	}
	if confined {
		s.wrap(cli)
	}
	return cli, nil
}
