package nacos

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"sdchaos/linkproxy"
	"sdchaos/ports"
)

// Link is one client's path to a server, or to every member of a cluster: per server a
// loopback fault proxy for the HTTP port and one for the gRPC port, with the same offset
// between them as the server's (so a client given Addr finds gRPC at each address's port +
// 1000, as every Nacos client assumes).
type Link struct {
	name       string
	src        netip.Addr
	http, grpc []*linkproxy.Proxy
}

// NewLink opens the two proxies to s: HTTP on a port p from alloc, gRPC on p + 1000.
func NewLink(alloc *ports.Allocator, s *Server, name string) (*Link, error) {
	return NewLinkFrom(alloc, s, name, netip.Addr{})
}

// NewLinkFrom is NewLink with the proxies dialing s from address src (when valid): in a private
// network namespace, the packets of the clients' traffic then name src, and a packet fault
// (Member.ClientTrafficFrom) tells them from the harness's own reads of the members.
func NewLinkFrom(alloc *ports.Allocator, s *Server, name string, src netip.Addr) (*Link, error) {
	l := &Link{name: name, src: src}
	if err := l.add(alloc, s.Addr(), s.GRPCAddr()); err != nil {
		return nil, err
	}
	return l, nil
}

// NewClusterLink opens the two proxies to every member, in the members' order: the client is
// given every member (Addr lists them) and picks among them as it does among real members.
// The proxies dial each member's addresses, so they outlive a member's restart.
func NewClusterLink(alloc *ports.Allocator, members []*Member, name string) (*Link, error) {
	return NewClusterLinkFrom(alloc, members, name, netip.Addr{})
}

// NewClusterLinkFrom is NewClusterLink with the proxies dialing the members from address src
// (when valid), as NewLinkFrom.
func NewClusterLinkFrom(alloc *ports.Allocator, members []*Member, name string, src netip.Addr) (*Link, error) {
	l := &Link{name: name, src: src}
	for _, m := range members {
		if err := l.add(alloc, m.Addr(), m.GRPCAddr()); err != nil {
			l.Close()
			return nil, fmt.Errorf("%w (to %s)", err, m.Name())
		}
	}
	return l, nil
}

// add opens one server's pair of proxies.
func (l *Link) add(alloc *ports.Allocator, httpAddr, grpcAddr string) error {
	p, err := alloc.Take(l.name + " http proxy")
	if err != nil {
		return fmt.Errorf("linking %s: %w", l.name, err)
	}
	h, err := linkproxy.NewDial(ports.Addr(p), httpAddr, l.dial)
	if err != nil {
		return fmt.Errorf("linking %s: %w", l.name, err)
	}
	g, err := linkproxy.NewDial(ports.Addr(p+GRPCOffset), grpcAddr, l.dial)
	if err != nil {
		h.Close()
		return fmt.Errorf("linking %s (gRPC proxy on port %d): %w", l.name, p+GRPCOffset, err)
	}
	l.http, l.grpc = append(l.http, h), append(l.grpc, g)
	return nil
}

// dial opens a proxy's connection to its server, from the link's source address when it has one.
func (l *Link) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	if l.src.IsValid() {
		d.LocalAddr = &net.TCPAddr{IP: l.src.AsSlice()}
	}
	return d.Dial(network, addr)
}

// Name returns the name of the client whose link it is (a fault's target).
func (l *Link) Name() string { return l.name }

// Addr returns the HTTP address clients are given (a cluster link's: one per member,
// comma-separated, as Nacos clients take a server list).
func (l *Link) Addr() string {
	out := make([]string, len(l.http))
	for i, h := range l.http {
		out[i] = h.Addr()
	}
	return strings.Join(out, ",")
}

// Blackhole holds every byte both ways on every proxy (connections stay open).
func (l *Link) Blackhole() error { return l.each((*linkproxy.Proxy).Blackhole) }

// Heal lets bytes pass again.
func (l *Link) Heal() error { return l.each((*linkproxy.Proxy).Heal) }

// Close closes every proxy and its connections.
func (l *Link) Close() {
	for i := range l.http {
		l.http[i].Close()
		l.grpc[i].Close()
	}
}

// each applies f to every proxy, gRPC first, and joins the errors.
func (l *Link) each(f func(*linkproxy.Proxy) error) error {
	var errs []error
	for i := range l.http {
		errs = append(errs, f(l.grpc[i]), f(l.http[i]))
	}
	return errors.Join(errs...)
}
