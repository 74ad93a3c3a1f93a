// Package etcdcli creates the harness's etcd clients: silent logger, lazy
// dialing, keep-alive pings so a dead connection is noticed within seconds.
package etcdcli

import (
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// New returns a client for endpoints. Dialing never blocks; every call must
// carry its own deadline.
func New(endpoints ...string) (*clientv3.Client, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          2 * time.Second,
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("creating etcd client for %v: %w", endpoints, err)
	}
	return cli, nil
}
