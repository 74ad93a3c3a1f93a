package etcd

import (
	"context"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
)

// members returns three members on 198.18.0.1–3 (client ports 9201, 9203,
// 9205), not started.
func packetMembers() []*cluster.Node {
	var ns []*cluster.Node
	for i := range 3 {
		ns = append(ns, &cluster.Node{Index: i, Name: "n" + string(rune('1'+i)), Host: netns.MemberAddr(i).String(),
			ClientPort: 9201 + 2*i, PeerPort: 9202 + 2*i})
	}
	return ns
}

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestDropPeerPacketsRules(t *testing.T) {
	ms := packetMembers()
	a1, a2, a3 := addr("198.18.0.1"), addr("198.18.0.2"), addr("198.18.0.3")
	rule := func(src, dst netip.Addr) netns.Rule {
		return netns.Rule{Match: netns.Match{Src: src, Dst: dst}, Loss: 0.5}
	}
	tests := []struct {
		dir  fault.Direction
		want []netns.Rule
	}{
		{fault.BothWays, []netns.Rule{rule(a2, a1), rule(a1, a2), rule(a2, a3), rule(a3, a2)}},
		{fault.Outbound, []netns.Rule{rule(a2, a1), rule(a2, a3)}},
		{fault.Inbound, []netns.Rule{rule(a1, a2), rule(a3, a2)}},
	}
	for _, tc := range tests {
		d := &DropPeerPackets{Members: ms, Node: ms[1], Loss: 0.5, Dir: tc.dir}
		got, err := d.Rules()
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: rules %v, %v\nwant %v", tc.dir, got, err, tc.want)
		}
	}
}

func TestDropClientPacketsRules(t *testing.T) {
	ms := packetMembers()[:2]
	in := func(i int) netns.Rule {
		return netns.Rule{Match: netns.Match{Dst: ms[i].Addr(), DstPort: uint16(ms[i].ClientPort)}, Loss: 0.3}
	}
	out := func(i int) netns.Rule {
		return netns.Rule{Match: netns.Match{Src: ms[i].Addr(), SrcPort: uint16(ms[i].ClientPort)}, Loss: 0.3}
	}
	for dir, want := range map[fault.Direction][]netns.Rule{
		fault.BothWays: {in(0), out(0), in(1), out(1)}, fault.Inbound: {in(0), in(1)}, fault.Outbound: {out(0), out(1)},
	} {
		d := &DropClientPackets{Nodes: ms, Loss: 0.3, Dir: dir}
		if got := d.Rules(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rules %v\nwant %v", dir, got, want)
		}
	}
	// Limited to the clients on one address: the harness's own probes pass.
	fleet := netip.MustParseAddr("127.0.0.200")
	d := &DropClientPackets{Nodes: ms[:1], Loss: 1, Dir: fault.BothWays, Client: fleet}
	want := []netns.Rule{
		{Match: netns.Match{Src: fleet, Dst: ms[0].Addr(), DstPort: uint16(ms[0].ClientPort)}, Loss: 1},
		{Match: netns.Match{Src: ms[0].Addr(), SrcPort: uint16(ms[0].ClientPort), Dst: fleet}, Loss: 1},
	}
	if got := d.Rules(); !reflect.DeepEqual(got, want) {
		t.Errorf("one client address: rules %v\nwant %v", got, want)
	}
}

func TestDropMemberAndResetRules(t *testing.T) {
	ms := packetMembers()
	a := ms[2].Addr()
	got, err := (&DropMemberPackets{Node: ms[2], Loss: 1}).Rules()
	want := []netns.Rule{{Match: netns.Match{Dst: a}, Loss: 1}, {Match: netns.Match{Src: a, NotDst: a}, Loss: 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("drop member: %v, %v\nwant %v", got, err, want)
	}
	reset := (&ResetClientPackets{Nodes: ms[:1], Loss: 1}).Rules()
	wantReset := []netns.Rule{{Match: netns.Match{Dst: ms[0].Addr(), DstPort: 9201}, Loss: 1, Action: netns.Reset}}
	if !reflect.DeepEqual(reset, wantReset) {
		t.Errorf("reset: %v\nwant %v", reset, wantReset)
	}
}

// TestPacketFaultsRefuseSharedAddresses: members all on 127.0.0.1 cannot be
// told apart by their packets.
func TestPacketFaultsRefuseSharedAddresses(t *testing.T) {
	ms := packetMembers()
	for _, n := range ms {
		n.Host = "127.0.0.1"
	}
	if _, err := (&DropPeerPackets{Members: ms, Node: ms[0], Loss: 1}).Rules(); err == nil ||
		!strings.Contains(err.Error(), "shared or loopback") {
		t.Errorf("peer drop on 127.0.0.1: err = %v", err)
	}
	if _, err := (&DropMemberPackets{Node: ms[0], Loss: 1}).Rules(); err == nil {
		t.Error("member drop on 127.0.0.1: no error")
	}
	other := packetMembers()
	if _, err := (&DropPeerPackets{Members: other[:2], Node: other[2], Loss: 1}).Rules(); err == nil {
		t.Error("peer drop of a member outside the list: no error")
	}
}

func TestPacketFaultEvents(t *testing.T) {
	ms := packetMembers()
	tests := []struct {
		f     fault.Fault
		kind  history.EventKind
		label string
	}{
		{&DropPeerPackets{Members: ms, Node: ms[0], Loss: 0.3}, "packet-drop-peers",
			"drop 30 % of packets between n1 and its peers (both ways)"},
		{&DropPeerPackets{Members: ms, Node: ms[0], Loss: 1, Dir: fault.Outbound}, "packet-drop-peers",
			"drop 100 % of packets between n1 and its peers (outbound)"},
		{&DropClientPackets{Nodes: ms, Loss: 0.5}, "packet-drop-clients",
			"drop 50 % of client packets to and from n1,n2,n3 (both ways)"},
		{&DropMemberPackets{Node: ms[1], Loss: 1}, "packet-drop-member", "drop 100 % of packets to and from n2"},
		{&ResetClientPackets{Nodes: ms, Loss: 1}, "packet-reset-clients", "reset 100 % of client packets to n1,n2,n3"},
	}
	for _, tc := range tests {
		e := tc.f.Describe()
		if e.Kind != tc.kind || e.Label != tc.label || len(e.Targets) == 0 {
			t.Errorf("event %+v, want kind %s, label %q", e, tc.kind, tc.label)
		}
	}
}

// TestPacketFaultWithoutFilter: outside a private namespace the run has no
// filter, and the fault says so instead of touching anything.
func TestPacketFaultWithoutFilter(t *testing.T) {
	f := &DropClientPackets{Nodes: packetMembers(), Loss: 1}
	if err := f.Inject(context.Background()); err == nil || !strings.Contains(err.Error(), "no packet filter") {
		t.Errorf("inject without a filter: err = %v", err)
	}
	if err := f.Heal(context.Background()); err != nil {
		t.Errorf("heal of a fault never injected: %v", err)
	}
}
