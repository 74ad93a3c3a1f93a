package nacos

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPlanPorts(t *testing.T) {
	cases := []struct {
		name    string
		first   int
		n       int
		want    []MemberPorts
		wantErr string
	}{
		{name: "three members two apart", first: 10150, n: 3, want: []MemberPorts{
			{Main: 10150, GRPC: 11150, ClusterGRPC: 11151, Raft: 9150},
			{Main: 10152, GRPC: 11152, ClusterGRPC: 11153, Raft: 9152},
			{Main: 10154, GRPC: 11154, ClusterGRPC: 11155, Raft: 9154}}},
		{name: "one member", first: 20000, n: 1, want: []MemberPorts{{Main: 20000, GRPC: 21000, ClusterGRPC: 21001, Raft: 19000}}},
		{name: "raft below 9150", first: 10149, n: 3, wantErr: "below 10150"},
		{name: "no members", first: 10150, n: 0, wantErr: "at least one member"},
		{name: "cluster gRPC above 65535", first: 64532, n: 3, wantErr: "member 2's gRPC port 65536 is above 65535"},
		{name: "last fits", first: 64530, n: 3, want: []MemberPorts{
			{Main: 64530, GRPC: 65530, ClusterGRPC: 65531, Raft: 63530},
			{Main: 64532, GRPC: 65532, ClusterGRPC: 65533, Raft: 63532},
			{Main: 64534, GRPC: 65534, ClusterGRPC: 65535, Raft: 63534}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PlanPorts(c.first, c.n)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("PlanPorts(%d, %d) error = %v, want one containing %q", c.first, c.n, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("PlanPorts(%d, %d) = %v, want %v", c.first, c.n, got, c.want)
			}
		})
	}
}

// TestPortStrideAvoidsCollisions shows why members are two apart: with one, member 0's cluster
// gRPC port is member 1's SDK gRPC port; and a link taken after PortSpan meets no member port.
func TestPortStrideAvoidsCollisions(t *testing.T) {
	if a, b := PortsOf(10150), PortsOf(10151); a.ClusterGRPC != b.GRPC {
		t.Fatalf("stride 1: cluster gRPC %d vs next member's gRPC %d: the rule this test relies on changed", a.ClusterGRPC, b.GRPC)
	}
	plan, err := PlanPorts(10150, 3)
	if err != nil {
		t.Fatal(err)
	}
	link := 10150 + PortSpan(3) // the next port an allocator hands out
	for _, mp := range plan {
		for _, p := range mp.All() {
			if p == link || p == link+GRPCOffset {
				t.Errorf("a link on %d/%d meets member port %d", link, link+GRPCOffset, p)
			}
		}
	}
}

func TestClusterConf(t *testing.T) {
	plan, err := PlanPorts(10150, 3)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		hosts   []string
		want    []string
		wantErr string
	}{
		{name: "loopback", hosts: []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"},
			want: []string{"127.0.0.1:10150", "127.0.0.1:10152", "127.0.0.1:10154"}},
		{name: "private namespace addresses", hosts: []string{"198.18.0.1", "198.18.0.2", "198.18.0.3"},
			want: []string{"198.18.0.1:10150", "198.18.0.2:10152", "198.18.0.3:10154"}},
		{name: "host count differs", hosts: []string{"127.0.0.1"}, wantErr: "1 hosts for 3 members"},
		{name: "a name, not an address", hosts: []string{"localhost", "127.0.0.1", "127.0.0.1"}, wantErr: `"localhost"`},
		{name: "IPv6", hosts: []string{"::1", "127.0.0.1", "127.0.0.1"}, wantErr: `"::1"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ClusterConf(c.hosts, plan)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, l := range strings.Split(got, "\n") { // as EnvUtil.readClusterConf reads it
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
					lines = append(lines, l)
				}
			}
			if !slices.Equal(lines, c.want) {
				t.Errorf("members %v, want %v (file:\n%s)", lines, c.want, got)
			}
		})
	}
}

func TestClusterSpecValidate(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(*ClusterSpec)
		wantErr string
	}{
		{name: "default", edit: func(*ClusterSpec) {}},
		{name: "no members", edit: func(s *ClusterSpec) { s.Size = 0 }, wantErr: "Size (0)"},
		{name: "hosts count", edit: func(s *ClusterSpec) { s.Hosts = []string{"127.0.0.1"} }, wantErr: "1 addresses for 3 members"},
		{name: "bad host", edit: func(s *ClusterSpec) { s.Hosts = []string{"127.0.0.1", "x", "127.0.0.1"} }, wantErr: `Hosts[1] "x"`},
		{name: "bad mode", edit: func(s *ClusterSpec) { s.Mode = "config" }, wantErr: `Mode "config"`},
		{name: "member heap", edit: func(s *ClusterSpec) { s.Member.HeapMB = 64 }, wantErr: "HeapMB (64)"},
		{name: "negative retry", edit: func(s *ClusterSpec) { s.DistroLoadRetry = -time.Second }, wantErr: "DistroLoadRetry"},
		{name: "no ready timeout", edit: func(s *ClusterSpec) { s.ReadyTimeout = 0 }, wantErr: "ReadyTimeout (0s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := DefaultClusterSpec()
			c.edit(&s)
			err := s.Validate()
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, c.wantErr)
			}
		})
	}
}
