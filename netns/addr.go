package netns

import (
	"fmt"
	"net/netip"
)

// MemberNet is the range that the namespace makes local on its loopback (a
// "local" route, as 127.0.0.0/8 is): 198.18.0.0/24, from the benchmarking
// range of RFC 2544, which no host routes. Members listen on addresses of
// this range rather than on 127.0.0.N because etcd binds its outgoing peer
// connections to its own address (feature gate SetMemberLocalAddr) only
// when that address is not a loopback one; without that binding every peer
// connection would come from 127.0.0.1, and a packet could not tell which
// member sent it.
var MemberNet = netip.MustParsePrefix("198.18.0.0/24")

// MaxMembers is the number of member addresses MemberAddr hands out.
const MaxMembers = 254

// MemberAddr returns member i's address (0-based): 198.18.0.<i+1>. It
// panics when i is outside 0 … MaxMembers-1.
func MemberAddr(i int) netip.Addr {
	if i < 0 || i >= MaxMembers {
		panic(fmt.Sprintf("netns: member index %d outside 0…%d", i, MaxMembers-1))
	}
	b := MemberNet.Addr().As4()
	b[3] = byte(i + 1)
	return netip.AddrFrom4(b)
}

// MemberHosts returns the addresses of n members as strings, for
// cluster.Config.Hosts.
func MemberHosts(n int) []string {
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = MemberAddr(i).String()
	}
	return hosts
}
