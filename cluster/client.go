package cluster

import (
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// NewClient returns an etcd client for the given endpoints with a silent
// logger. Dialing is lazy: it never blocks; calls carry their own deadlines.
func NewClient(endpoints ...string) (*clientv3.Client, error) {
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

// Client returns a client over every member's endpoint.
func (c *Cluster) Client() (*clientv3.Client, error) { return NewClient(c.Endpoints()...) }

// Client returns a client bound to this member only.
func (n *Node) Client() (*clientv3.Client, error) { return NewClient(n.ClientURL()) }
