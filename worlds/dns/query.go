package dns

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	mdns "github.com/miekg/dns"
)

// QType is a DNS query type the world asks.
type QType uint16

// The query types the world uses.
const (
	TypeA   QType = QType(mdns.TypeA)
	TypeSRV QType = QType(mdns.TypeSRV)
	TypeSOA QType = QType(mdns.TypeSOA)
)

// String returns the type's mnemonic ("A", "SRV").
func (t QType) String() string { return mdns.TypeToString[uint16(t)] }

// Rcode is a DNS response code.
type Rcode int

// The response codes the world tells apart.
const (
	NoError  Rcode = mdns.RcodeSuccess
	ServFail Rcode = mdns.RcodeServerFailure
	NXDomain Rcode = mdns.RcodeNameError
)

// String returns the code's mnemonic ("NOERROR", "SERVFAIL").
func (r Rcode) String() string { return mdns.RcodeToString[int(r)] }

// Answer is what a server answered to one query.
type Answer struct {
	Rcode Rcode
	// Addrs are the A records' addresses; Ports the SRV records' ports,
	// both sorted.
	Addrs []netip.Addr
	Ports []uint16
	// TTL is the smallest TTL of the answer's records (0 without records).
	TTL time.Duration
	// Took is how long the exchange took.
	Took time.Duration
}

// Records returns how many A or SRV records the answer holds.
func (a Answer) Records() int { return len(a.Addrs) + len(a.Ports) }

// Query sends one query for name (fully qualified) of type t to server
// ("127.0.0.1:port") over UDP, again over TCP when the answer came
// truncated (RFC 7766: a long SRV list does not fit), and returns the
// answer; the exchange is bounded by ctx.
func Query(ctx context.Context, server, name string, t QType) (Answer, error) {
	q := new(mdns.Msg)
	q.SetQuestion(mdns.Fqdn(name), uint16(t))
	c := &mdns.Client{Net: "udp", Timeout: time.Minute}
	r, took, err := c.ExchangeContext(ctx, q, server)
	if err == nil && r.Truncated {
		c.Net = "tcp"
		var more time.Duration
		r, more, err = c.ExchangeContext(ctx, q, server)
		took += more
	}
	if err != nil {
		return Answer{Took: took}, fmt.Errorf("querying %s %s at %s: %w", name, t, server, err)
	}
	return parseAnswer(r, took), nil
}

func parseAnswer(r *mdns.Msg, took time.Duration) Answer {
	a := Answer{Rcode: Rcode(r.Rcode), Took: took}
	for i, rr := range r.Answer {
		if ttl := time.Duration(rr.Header().Ttl) * time.Second; i == 0 || ttl < a.TTL {
			a.TTL = ttl
		}
		switch v := rr.(type) {
		case *mdns.A:
			if ip, ok := netip.AddrFromSlice(v.A.To4()); ok {
				a.Addrs = append(a.Addrs, ip)
			}
		case *mdns.SRV:
			a.Ports = append(a.Ports, v.Port)
		}
	}
	slices.SortFunc(a.Addrs, netip.Addr.Compare)
	slices.Sort(a.Ports)
	return a
}
