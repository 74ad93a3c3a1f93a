package cluster

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/etcdcli"
)

// NewClient returns an etcd client for the given endpoints (see etcdcli.New).
func NewClient(endpoints ...string) (*clientv3.Client, error) { return etcdcli.New(endpoints...) }

// Client returns a client over every member's endpoint.
func (c *Cluster) Client() (*clientv3.Client, error) { return NewClient(c.Endpoints()...) }

// Client returns a client bound to this member only.
func (n *Node) Client() (*clientv3.Client, error) { return NewClient(n.ClientURL()) }
