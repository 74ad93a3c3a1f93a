package fakeservice

import (
	"context"
	"fmt"

	"sdchaos/ports"
)

// Group is a set of instances of one service.
type Group struct {
	Instances []*Instance
}

// StartGroup starts n instances named j1…jn, each on a port from alloc and
// with its own etcd client. On error the ones started are closed.
func StartGroup(ctx context.Context, cfg Config, n int, alloc *ports.Allocator, endpoints []string) (*Group, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &Group{}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("j%d", i)
		port, err := alloc.Take("instance " + id)
		if err != nil {
			g.Close()
			return nil, err
		}
		grpcPort := 0
		if cfg.GRPC {
			if grpcPort, err = alloc.Take("instance " + id + " gRPC"); err != nil {
				g.Close()
				return nil, err
			}
		}
		in, err := StartWithGRPC(ctx, cfg, id, port, grpcPort, endpoints)
		if err != nil {
			g.Close()
			return nil, err
		}
		g.Instances = append(g.Instances, in)
	}
	return g, nil
}

// Close closes every instance.
func (g *Group) Close() {
	for _, in := range g.Instances {
		in.Close()
	}
}
