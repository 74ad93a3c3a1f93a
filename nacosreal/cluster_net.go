package nacosreal

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
func (m *Member) ClientTraffic() ([]netns.Match, error) {
	a, err := netip.ParseAddr(m.host)
	if err != nil || !a.Is4() {
		return nil, fmt.Errorf("%s: host %q is not an IPv4 address", m.name, m.host)
	}
	var out []netns.Match
	for _, p := range m.ports.ClientPorts() {
		out = append(out, netns.Match{Dst: a, DstPort: uint16(p)}, netns.Match{Src: a, SrcPort: uint16(p)})
	}
	return out, nil
}
