package main

import (
	"context"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdLister reads the keys under SDCHAOS_PREFIX; each value is "host:port".
type etcdLister struct {
	cli    *clientv3.Client
	prefix string
}

func newEtcdLister(endpoints []string) (lister, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	return &etcdLister{cli: cli, prefix: os.Getenv("SDCHAOS_PREFIX")}, nil
}

func (e *etcdLister) list(ctx context.Context) ([]string, error) {
	resp, err := e.cli.Get(ctx, e.prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	addrs := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		addrs = append(addrs, string(kv.Value))
	}
	return addrs, nil
}

func (e *etcdLister) close() { _ = e.cli.Close() }
