package netns

import (
	"fmt"
	"math"
	"net/netip"

	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// Action is what a rule does to the packets it selects.
type Action int

const (
	// Drop discards the packet silently, as a lossy link does: the sender's
	// TCP retransmits with growing timeouts.
	Drop Action = iota
	// Reset discards the packet and answers the sender with a TCP reset, as
	// a host whose port is closed does.
	Reset
)

// String returns "drop" or "reset".
func (a Action) String() string {
	if a == Reset {
		return "reset"
	}
	return "drop"
}

// Match selects IPv4 TCP packets by addresses and ports; a zero field
// matches anything.
type Match struct {
	// Src and Dst are the source and destination addresses.
	Src, Dst netip.Addr
	// SrcPort and DstPort are the TCP ports.
	SrcPort, DstPort uint16
	// NotDst excludes packets to this address (a member's packets to
	// itself, when Src selects the member and Dst cannot).
	NotDst netip.Addr
}

// Rule is one packet filter rule: the packets it selects, the share of them
// it acts on, and the action.
type Rule struct {
	Match
	// Loss is the probability, in (0, 1], that a selected packet is acted
	// on, drawn independently for each packet (nf_tables "numgen random",
	// resolved to one part in LossScale).
	Loss   float64
	Action Action
}

// LossScale is the resolution of Rule.Loss: a packet is acted on when a
// uniform random number in [0, LossScale) is below Loss × LossScale.
const LossScale = 1_000_000

// Validate reports a rule that cannot be built.
func (r Rule) Validate() error {
	switch {
	case !(r.Loss > 0 && r.Loss <= 1):
		return fmt.Errorf("packet loss (%g) must be within (0, 1]", r.Loss)
	case !v4(r.Src) || !v4(r.Dst) || !v4(r.NotDst):
		return fmt.Errorf("rule %v: addresses must be IPv4", r.Match)
	case r.Action != Drop && r.Action != Reset:
		return fmt.Errorf("rule %v: unknown action %d", r.Match, r.Action)
	}
	return nil
}

func v4(a netip.Addr) bool { return !a.IsValid() || a.Is4() }

// threshold returns Loss × LossScale, rounded.
func (r Rule) threshold() uint32 { return uint32(math.Round(r.Loss * LossScale)) }

// Exprs returns the rule as nf_tables expressions for an IPv4 table: the
// TCP match, the addresses and ports, a counter of selected packets, the
// random draw (when Loss < 1), a counter of packets acted on, and the
// verdict (drop, or reject with a TCP reset).
func (r Rule) Exprs() ([]expr.Any, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	es := eq(&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1}, []byte{unix.IPPROTO_TCP})
	es = append(es, r.Match.exprs()...)
	es = append(es, &expr.Counter{})
	if t := r.threshold(); t < LossScale {
		es = append(es, chance(t)...)
	}
	es = append(es, &expr.Counter{})
	return append(es, r.Action.verdict()), nil
}

// Payload offsets: IPv4 source and destination, TCP source and destination port.
const (
	offSrc, offDst         = 12, 16
	offSrcPort, offDstPort = 0, 2
)

func (m Match) exprs() []expr.Any {
	var es []expr.Any
	if m.Src.IsValid() {
		es = append(es, eq(network(offSrc), m.Src.AsSlice())...)
	}
	if m.Dst.IsValid() {
		es = append(es, eq(network(offDst), m.Dst.AsSlice())...)
	}
	if m.NotDst.IsValid() {
		es = append(es, network(offDst), &expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: m.NotDst.AsSlice()})
	}
	if m.SrcPort != 0 {
		es = append(es, eq(transport(offSrcPort), binaryutil.BigEndian.PutUint16(m.SrcPort))...)
	}
	if m.DstPort != 0 {
		es = append(es, eq(transport(offDstPort), binaryutil.BigEndian.PutUint16(m.DstPort))...)
	}
	return es
}

// chance selects a packet with probability t/LossScale: numgen random mod
// LossScale < t. numgen leaves a host-order number in the register and cmp
// compares bytes, so the number is turned to network order first (as nft
// itself does for "numgen random mod 100 < 30").
func chance(t uint32) []expr.Any {
	return []expr.Any{
		&expr.Numgen{Register: 1, Modulus: LossScale, Type: unix.NFT_NG_RANDOM},
		&expr.Byteorder{SourceRegister: 1, DestRegister: 1, Op: expr.ByteorderHton, Len: 4, Size: 4},
		&expr.Cmp{Op: expr.CmpOpLt, Register: 1, Data: binaryutil.BigEndian.PutUint32(t)},
	}
}

func (a Action) verdict() expr.Any {
	if a == Reset {
		return &expr.Reject{Type: unix.NFT_REJECT_TCP_RST}
	}
	return &expr.Verdict{Kind: expr.VerdictDrop}
}

func eq(load expr.Any, data []byte) []expr.Any {
	return []expr.Any{load, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: data}}
}

func network(off uint32) expr.Any {
	return &expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: off, Len: 4}
}

func transport(off uint32) expr.Any {
	return &expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: off, Len: 2}
}
