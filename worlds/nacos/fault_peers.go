package nacos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"sdchaos/history"
	"sdchaos/linkproxy"
)

// Peer links put the members' cluster gRPC traffic (member reports and Distro: everything the
// members say to each other about ephemeral instances) through a fault proxy per ordered pair
// of members, so that one member can be cut off from its peers while its clients still reach it.
//
// How the traffic is routed: a member's cluster gRPC client dials a peer at the peer's main port
// + rpcPortOffset(), and GrpcClusterClient.rpcPortOffset reads the JVM's system property
// nacos.server.grpc.port.offset (default 1001; alibaba/nacos 486e198
// common/.../remote/client/grpc/GrpcClusterClient.java:83-85, key in GrpcConstants.java:36),
// while the cluster gRPC server listens at main + 1001 whatever the property says
// (core/.../remote/grpc/GrpcClusterServer.java:49-50). So member i gets its own offset
// PeerOffset(i, size): it dials peer j at main_j + PeerOffset(i), where the proxy i→j listens and
// forwards to j's cluster gRPC port. A member dials no client to itself
// (ClusterRpcClientProxy.refresh over allMembersWithoutSelf).
//
// What is not routed: JRaft (the raft port, main − 1000). A raft peer's id is its address,
// ip:(main − 1000) (core/.../cluster/MemberUtil.java:120-121, ProtocolManager.java:80-81), the
// same for every member, so it cannot be pointed at a per-pair proxy; and on one host a packet
// cannot tell which member opened a connection (cluster_net.go). JRaft holds no ephemeral
// instance (Distro does); a cut leaves it connected.

// peerOffsetBase is member 0's cluster gRPC client offset: its proxies listen 900 below the
// peers' main ports, above every member's JRaft port (main − 1000 … main − 1000 + 2(size − 1))
// and below every main port, where nothing else of the world listens.
const peerOffsetBase = -900

// PeerOffset is member i's nacos.server.grpc.port.offset in a cluster of size members with peer
// links: proxy i→j listens on main_j + PeerOffset(i, size) = first + peerOffsetBase + 2(size·i + j),
// a port of its own for every ordered pair.
func PeerOffset(i, size int) int { return peerOffsetBase + MemberPortStride*size*i }

// PeerLink is one member's cluster gRPC path to one peer: a proxy on the peer's main port + the
// member's PeerOffset, forwarding to the peer's cluster gRPC port.
type PeerLink struct {
	From, To string
	proxy    *linkproxy.Proxy
}

// Proxy returns the link's proxy.
func (l PeerLink) Proxy() *linkproxy.Proxy { return l.proxy }

// openPeerLinks opens a proxy for every ordered pair of members, on the peer's address (where
// the member dials it: 127.0.0.1, or the peer's 198.18.0.N in a private network namespace, whose
// packet faults match only the members' client ports and leave these alone); on error nothing
// it opened is left.
func openPeerLinks(ms []*Member) ([]PeerLink, error) {
	var out []PeerLink
	for i, from := range ms {
		for j, to := range ms {
			if i == j {
				continue
			}
			listen := net.JoinHostPort(to.host, strconv.Itoa(to.ports.Main+PeerOffset(i, len(ms))))
			target := net.JoinHostPort(to.host, strconv.Itoa(to.ports.ClusterGRPC))
			p, err := linkproxy.New(listen, target)
			if err != nil {
				closePeerLinks(out)
				return nil, fmt.Errorf("the peer link %s→%s: %w", from.name, to.name, err)
			}
			out = append(out, PeerLink{From: from.name, To: to.name, proxy: p})
		}
	}
	return out, nil
}

func closePeerLinks(ls []PeerLink) {
	for _, l := range ls {
		l.proxy.Close()
	}
}

// PeerLinksOf returns the peer links to and from the named member (none without peer links).
func (c *Cluster) PeerLinksOf(name string) []PeerLink {
	var out []PeerLink
	for _, l := range c.peers {
		if l.From == name || l.To == name {
			out = append(out, l)
		}
	}
	return out
}

// CutMember cuts one member off from its peers while its clients still reach it: every peer
// link to and from it holds its bytes both ways (connections stay open, as under total packet
// loss between it and the others). It is a fault.Healer.
type CutMember struct {
	Member string
	Links  []PeerLink
}

// Describe returns the partition-member event.
func (c CutMember) Describe() history.Event {
	return history.Event{Kind: history.PartitionMember, Targets: []string{c.Member},
		Label: "cut nacos " + c.Member + " off from its peers (cluster gRPC: member reports, Distro; JRaft left connected)"}
}

// Inject blackholes the member's peer links.
func (c CutMember) Inject(context.Context) error {
	if len(c.Links) == 0 {
		return fmt.Errorf("nacos %s has no peer link (the cluster was started without peer links)", c.Member)
	}
	return c.each((*linkproxy.Proxy).Blackhole)
}

// Heal lets the peer links pass again.
func (c CutMember) Heal(context.Context) error { return c.each((*linkproxy.Proxy).Heal) }

func (c CutMember) each(f func(*linkproxy.Proxy) error) error {
	var errs []error
	for _, l := range c.Links {
		if err := f(l.proxy); err != nil {
			errs = append(errs, fmt.Errorf("%s→%s: %w", l.From, l.To, err))
		}
	}
	return errors.Join(errs...)
}
