package caller

import (
	"context"
	"fmt"
	"path"
	"sort"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Source lists the instances of a service (a registry client).
type Source interface {
	List(ctx context.Context) ([]Endpoint, error)
}

// EtcdSource lists keys under a prefix: key basename = id, value = address.
type EtcdSource struct {
	Client *clientv3.Client
	Prefix string
	// Serializable reads from the contacted member without quorum.
	Serializable bool
}

// List reads the prefix (linearizable unless Serializable), sorted by key.
func (s EtcdSource) List(ctx context.Context) ([]Endpoint, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix()}
	if s.Serializable {
		opts = append(opts, clientv3.WithSerializable())
	}
	resp, err := s.Client.Get(ctx, s.Prefix, opts...)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", s.Prefix, err)
	}
	out := make([]Endpoint, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		out = append(out, Endpoint{ID: path.Base(string(kv.Key)), Addr: string(kv.Value)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
