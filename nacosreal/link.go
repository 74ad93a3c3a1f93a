package nacosreal

import (
	"fmt"

	"sdchaos/linkproxy"
	"sdchaos/ports"
)

// Link is one client's path to a server: a loopback fault proxy for the HTTP port and one for
// the gRPC port, with the same offset between them as the server's (so a client given Addr
// finds gRPC at Addr's port + 1000, as every Nacos client assumes).
type Link struct {
	name       string
	http, grpc *linkproxy.Proxy
}

// NewLink opens the two proxies to s: HTTP on a port p from alloc, gRPC on p + 1000.
func NewLink(alloc *ports.Allocator, s *Server, name string) (*Link, error) {
	p, err := alloc.Take(name + " http proxy")
	if err != nil {
		return nil, fmt.Errorf("linking %s: %w", name, err)
	}
	h, err := linkproxy.New(ports.Addr(p), s.Addr())
	if err != nil {
		return nil, fmt.Errorf("linking %s: %w", name, err)
	}
	g, err := linkproxy.New(ports.Addr(p+GRPCOffset), s.GRPCAddr())
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("linking %s (gRPC proxy on port %d): %w", name, p+GRPCOffset, err)
	}
	return &Link{name: name, http: h, grpc: g}, nil
}

// Name returns the name of the client whose link it is (a fault's target).
func (l *Link) Name() string { return l.name }

// Addr returns the HTTP address clients are given.
func (l *Link) Addr() string { return l.http.Addr() }

// Blackhole holds every byte both ways on both proxies (connections stay open).
func (l *Link) Blackhole() error { return l.both((*linkproxy.Proxy).Blackhole) }

// Heal lets bytes pass again.
func (l *Link) Heal() error { return l.both((*linkproxy.Proxy).Heal) }

// Close closes both proxies and their connections.
func (l *Link) Close() {
	l.http.Close()
	l.grpc.Close()
}

func (l *Link) both(f func(*linkproxy.Proxy) error) error {
	if err := f(l.grpc); err != nil {
		return err
	}
	return f(l.http)
}
