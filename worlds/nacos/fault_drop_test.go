package nacos

import (
	"net/netip"
	"testing"

	"sdchaos/history"
	"sdchaos/netns"
)

// TestDropClientsRules: DropClients drops, per member, both directions of its two client ports —
// only the packets from and to the clients' source address when it has one, so the harness's own
// reads (from the member's address) pass — and never touches the cluster gRPC or JRaft ports.
func TestDropClientsRules(t *testing.T) {
	plan, err := PlanPorts(10150, 2)
	if err != nil {
		t.Fatal(err)
	}
	ms := []*Member{{name: "nacos1", host: "198.18.0.1", ports: plan[0]}, {name: "nacos2", host: "198.18.0.2", ports: plan[1]}}
	src := netip.MustParseAddr("127.0.0.100")
	d := &DropClients{Members: ms, Source: src}
	rules, err := d.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 8 {
		t.Fatalf("%d rules, want 2 members × 2 client ports × 2 directions", len(rules))
	}
	peers := map[uint16]bool{}
	for _, p := range plan {
		peers[uint16(p.ClusterGRPC)], peers[uint16(p.Raft)] = true, true
	}
	for _, r := range rules {
		if r.Loss != 1 || r.Action != netns.Drop {
			t.Errorf("rule %+v: want every packet dropped", r)
		}
		if r.Src != src && r.Dst != src {
			t.Errorf("rule %+v: not limited to the clients' address %s", r.Match, src)
		}
		if peers[r.DstPort] || peers[r.SrcPort] {
			t.Errorf("rule %+v selects a member's peer port", r.Match)
		}
	}
	if e := d.Describe(); e.Kind != history.PacketDropClients || len(e.Targets) != 2 {
		t.Errorf("event %+v, want packet-drop-clients on both members", e)
	}
	any, err := ms[0].ClientTraffic()
	if err != nil || len(any) != 4 || any[0].Src.IsValid() {
		t.Errorf("ClientTraffic = %+v, %v; want 4 matches from any address", any, err)
	}
	if _, err := (&Member{name: "x", host: "localhost", ports: plan[0]}).ClientTrafficFrom(src); err == nil {
		t.Error("a member on a host name gave matches")
	}
}
