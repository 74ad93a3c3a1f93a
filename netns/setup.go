package netns

import (
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// setupNetwork brings the namespace's loopback up and makes MemberNet
// local on it (like 127.0.0.0/8: any address of the range can be bound and
// reached over lo). It is idempotent.
func setupNetwork() error {
	lo, err := netlink.LinkByName("lo")
	if err != nil {
		return fmt.Errorf("finding the namespace's loopback: %w", err)
	}
	if err := netlink.LinkSetUp(lo); err != nil {
		return fmt.Errorf("bringing the namespace's loopback up: %w", err)
	}
	if err := netlink.RouteReplace(memberRoute(lo.Attrs().Index)); err != nil {
		return fmt.Errorf("making %s local on lo: %w", MemberNet, err)
	}
	return nil
}

// memberRoute is "local 198.18.0.0/24 dev lo table local scope host".
func memberRoute(lo int) *netlink.Route {
	return &netlink.Route{
		LinkIndex: lo,
		Dst:       &net.IPNet{IP: MemberNet.Addr().AsSlice(), Mask: net.CIDRMask(MemberNet.Bits(), 32)},
		Type:      unix.RTN_LOCAL,
		Table:     unix.RT_TABLE_LOCAL,
		Scope:     netlink.SCOPE_HOST,
	}
}
