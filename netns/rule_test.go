package netns

import (
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

var (
	a1 = netip.MustParseAddr("198.18.0.1")
	a2 = netip.MustParseAddr("198.18.0.2")
)

func TestRuleExprs(t *testing.T) {
	tcp := []expr.Any{&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}}}
	src1 := []expr.Any{network(offSrc), &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{198, 18, 0, 1}}}
	dst2 := []expr.Any{network(offDst), &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{198, 18, 0, 2}}}
	notDst1 := []expr.Any{network(offDst), &expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: []byte{198, 18, 0, 1}}}
	sport := []expr.Any{transport(offSrcPort), &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{0x23, 0xf0}}}
	dport := []expr.Any{transport(offDstPort), &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{0x23, 0xf1}}}
	thirty := []expr.Any{&expr.Numgen{Register: 1, Modulus: 1_000_000, Type: unix.NFT_NG_RANDOM},
		&expr.Byteorder{SourceRegister: 1, DestRegister: 1, Op: expr.ByteorderHton, Len: 4, Size: 4},
		&expr.Cmp{Op: expr.CmpOpLt, Register: 1, Data: []byte{0x00, 0x04, 0x93, 0xe0}}} // 300 000, big-endian
	drop, reset := &expr.Verdict{Kind: expr.VerdictDrop}, &expr.Reject{Type: unix.NFT_REJECT_TCP_RST}
	counter := &expr.Counter{}
	tests := []struct {
		name string
		rule Rule
		want []expr.Any
	}{
		{"every packet from a1 to a2", Rule{Match: Match{Src: a1, Dst: a2}, Loss: 1},
			cat(tcp, src1, dst2, []expr.Any{counter, counter, drop})},
		{"30 % to a2's port 9201", Rule{Match: Match{Dst: a2, DstPort: 9201}, Loss: 0.3},
			cat(tcp, dst2, dport, []expr.Any{counter}, thirty, []expr.Any{counter, drop})},
		{"from a1 to others, port 9200", Rule{Match: Match{Src: a1, NotDst: a1, SrcPort: 9200}, Loss: 1},
			cat(tcp, src1, notDst1, sport, []expr.Any{counter, counter, drop})},
		{"reset everything", Rule{Loss: 1, Action: Reset}, cat(tcp, []expr.Any{counter, counter, reset})},
	}
	for _, tc := range tests {
		got, err := tc.rule.Exprs()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, show(got), show(tc.want))
		}
	}
}

func TestRuleValidation(t *testing.T) {
	v6 := netip.MustParseAddr("::1")
	tests := []struct {
		rule Rule
		want string
	}{
		{Rule{Loss: 0}, "packet loss (0)"},
		{Rule{Loss: 1.5}, "packet loss (1.5)"},
		{Rule{Loss: -0.1}, "packet loss (-0.1)"},
		{Rule{Match: Match{Dst: v6}, Loss: 1}, "IPv4"},
		{Rule{Loss: 1, Action: Action(7)}, "unknown action"},
	}
	for _, tc := range tests {
		if _, err := tc.rule.Exprs(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want it to say %q", tc.rule, err, tc.want)
		}
	}
}

func TestLossResolution(t *testing.T) {
	for _, tc := range []struct {
		loss float64
		want uint32
	}{{1, LossScale}, {0.5, 500_000}, {0.3, 300_000}, {0.000001, 1}, {0.333333333, 333_333}} {
		if got := (Rule{Loss: tc.loss}).threshold(); got != tc.want {
			t.Errorf("threshold(%g) = %d, want %d", tc.loss, got, tc.want)
		}
	}
}

func TestMemberAddr(t *testing.T) {
	if got := MemberAddr(0).String(); got != "198.18.0.1" {
		t.Errorf("MemberAddr(0) = %s", got)
	}
	if got := MemberHosts(3); !reflect.DeepEqual(got, []string{"198.18.0.1", "198.18.0.2", "198.18.0.3"}) {
		t.Errorf("MemberHosts(3) = %v", got)
	}
	for i := range MaxMembers {
		if a := MemberAddr(i); !MemberNet.Contains(a) || a == MemberNet.Addr() {
			t.Fatalf("MemberAddr(%d) = %s: not a host of %s", i, a, MemberNet)
		}
	}
}

func TestOpenFilterRefusesTheHost(t *testing.T) {
	if Inside() {
		t.Skip("runs outside a private namespace")
	}
	if _, err := OpenFilter(); err == nil || !strings.Contains(err.Error(), "never on the host") {
		t.Errorf("OpenFilter outside a private namespace: err = %v", err)
	}
	ino, err := netnsInode()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{strconv.FormatUint(ino, 10), "not-a-number"} {
		t.Setenv(envMarker, v)
		if Inside() {
			t.Errorf("marker %q is believed in the host's namespace", v)
		}
	}
}

func cat(parts ...[]expr.Any) []expr.Any {
	var out []expr.Any
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func show(es []expr.Any) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(reflect.TypeOf(e).Elem().Name())
		b.WriteString(" ")
	}
	return b.String()
}
