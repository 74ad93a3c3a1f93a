package nacos

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"

	"sdchaos/ports"
)

// MemberPorts are the four ports one Nacos member listens on, all derived from its main port
// as Nacos derives them: the SDK gRPC server main+1000 and the cluster gRPC server main+1001
// (api Constants.SDK_GRPC_PORT_DEFAULT_OFFSET, CLUSTER_GRPC_PORT_DEFAULT_OFFSET), JRaft
// main−1000 (core cluster/MemberUtil.calculateRaftPort, DEFAULT_RAFT_OFFSET_PORT).
type MemberPorts struct {
	// Main is the HTTP port (nacos.server.main.port): open and admin APIs.
	Main int
	// GRPC is the SDK clients' gRPC port.
	GRPC int
	// ClusterGRPC carries member reports and Distro between members.
	ClusterGRPC int
	// Raft is JRaft's port (CP groups: naming metadata, persistent instances, the config store).
	Raft int
}

// PortsOf returns the ports of a member whose main port is main.
func PortsOf(main int) MemberPorts {
	return MemberPorts{Main: main, GRPC: main + GRPCOffset, ClusterGRPC: main + ClusterGRPCOffset, Raft: main + RaftOffset}
}

// All returns the four ports: main, gRPC, cluster gRPC, raft.
func (p MemberPorts) All() []int { return []int{p.Main, p.GRPC, p.ClusterGRPC, p.Raft} }

// ClientPorts returns the ports clients use (HTTP and SDK gRPC): what a fault between a member
// and its clients cuts, leaving the members' own traffic (cluster gRPC, raft) alone.
func (p MemberPorts) ClientPorts() []int { return []int{p.Main, p.GRPC} }

// MemberPortStride is the distance between consecutive members' main ports. With 1, member
// i's cluster gRPC port (main+1001) would be member i+1's SDK gRPC port (main+1+1000).
const MemberPortStride = 2

// PortSpan is how many consecutive ports a cluster of n members takes from its allocator
// (StartCluster): its main ports first, first+2, …, plus the ones between and one after, so
// that a link taken next from the same allocator (HTTP port q, gRPC q+1000) meets none of the
// members' derived ports.
func PortSpan(n int) int { return n * MemberPortStride }

// PlanPorts returns the ports of n members whose first main port is first, MemberPortStride
// apart. It checks that every JRaft port is at least 9150 (the harness's lowest port), every
// port at most 65535, and no port used twice.
func PlanPorts(first, n int) ([]MemberPorts, error) {
	if n < 1 {
		return nil, fmt.Errorf("a cluster needs at least one member, got %d", n)
	}
	if first < MinMainPort {
		return nil, fmt.Errorf("first main port %d is below %d (JRaft listens on main − 1000, which must be ≥ 9150)", first, MinMainPort)
	}
	plan := make([]MemberPorts, n)
	seen := map[int]string{}
	for i := range plan {
		plan[i] = PortsOf(first + i*MemberPortStride)
		for j, port := range plan[i].All() {
			what := fmt.Sprintf("member %d's %s port", i, portNames[j])
			if port > ports.MaxPort {
				return nil, fmt.Errorf("%s %d is above %d", what, port, ports.MaxPort)
			}
			if other, dup := seen[port]; dup {
				return nil, fmt.Errorf("%s %d is also %s", what, port, other)
			}
			seen[port] = what
		}
	}
	return plan, nil
}

// portNames label MemberPorts.All's ports in errors.
var portNames = []string{"main", "gRPC", "cluster gRPC", "raft"}

// ClusterConf returns the text of cluster.conf for members at hosts[i]:plan[i].Main, one
// "ip:port" a line, as Nacos reads it (sys EnvUtil.readClusterConf: '#' starts a comment, blank
// lines are skipped; core MemberUtil.singleParse: "ip:port", the port defaulting to the
// server's own main port). Nacos names a member by this address (EnvUtil.getLocalAddress is
// nacos.server.ip + ":" + main port), so each member's nacos.server.ip must be its host here.
func ClusterConf(hosts []string, plan []MemberPorts) (string, error) {
	if len(hosts) != len(plan) {
		return "", fmt.Errorf("cluster.conf: %d hosts for %d members", len(hosts), len(plan))
	}
	var b strings.Builder
	b.WriteString("# written by sdchaos: one member a line, ip:main port\n")
	for i, h := range hosts {
		if net.ParseIP(h) == nil || strings.Contains(h, ":") {
			return "", fmt.Errorf("cluster.conf: member %d's host %q is not an IPv4 address", i, h)
		}
		b.WriteString(net.JoinHostPort(h, strconv.Itoa(plan[i].Main)) + "\n")
	}
	return b.String(), nil
}

// checkFreeOn reports an error naming port when it cannot be bound on host.
func checkFreeOn(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %d on %s: %w", port, host, ports.ErrInUse)
		}
		return fmt.Errorf("port %d on %s: %w", port, host, err)
	}
	return l.Close()
}
