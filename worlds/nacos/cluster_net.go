package nacos

import (
	"fmt"
	"net/netip"

	"sdchaos/netns"
)

// ClientTraffic returns the packet matches that select member m's traffic with its clients, for
// packet faults in a private network namespace (netns.Filter.Apply with a Rule per match): the
// packets to its HTTP and SDK gRPC ports and the packets from them. The members' own traffic
// uses other ports — member reports and Distro the cluster gRPC port (main+1001: core
// ServerMemberManager.MemberInfoReportTask.reportByGrpc, the default for a member parsed from
// cluster.conf, MemberUtil.singleParse sets grpcReportEnabled; Distro's
// DistroClientTransportAgent over ClusterRpcClientProxy), JRaft the raft port (main−1000) — so
// these matches leave the cluster itself alone. They select by address and port, because an
// address does not tell a client from a peer here: on a "local" route the kernel gives a
// connection the destination's address as its source (a client of 198.18.0.2 sends from
// 198.18.0.2), so every connection to a member, a client's or a peer's, carries the member's
// address at both ends. The harness's own reads of m's admin API use the HTTP port and are cut
// with it.
func (m *Member) ClientTraffic() ([]netns.Match, error) { return m.ClientTrafficFrom(netip.Addr{}) }

// ClientTrafficFrom is ClientTraffic limited, when src is valid, to the clients that reach m from
// src (links opened by NewLinkFrom or NewClusterLinkFrom with src): the packets from src to m's
// client ports and from them to src. The harness's own reads of m (its admin API, from m's
// address: the kernel's choice on the local route) then pass, so the world can still read what m
// lists while its clients lose it.
func (m *Member) ClientTrafficFrom(src netip.Addr) ([]netns.Match, error) {
	if src.IsValid() && !src.Is4() {
		return nil, fmt.Errorf("%s: client address %s is not IPv4", m.name, src)
	}
	a, err := netip.ParseAddr(m.host)
	if err != nil || !a.Is4() {
		return nil, fmt.Errorf("%s: host %q is not an IPv4 address", m.name, m.host)
	}
	var out []netns.Match
	for _, p := range m.ports.ClientPorts() {
		out = append(out, netns.Match{Src: src, Dst: a, DstPort: uint16(p)}, netns.Match{Src: a, SrcPort: uint16(p), Dst: src})
	}
	return out, nil
}
