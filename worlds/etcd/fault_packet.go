package etcd

import (
	"fmt"
	"strings"

	"sdchaos/cluster"
)

// distinctAddrs checks that every member has its own non-loopback address.
func distinctAddrs(ns []*cluster.Node) error {
	seen := map[string]string{}
	for _, n := range ns {
		if a := n.Addr(); a.IsLoopback() || seen[n.Host] != "" {
			return fmt.Errorf("etcd %s listens on %s, shared or loopback: packet faults need a member address "+
				"each (cluster.Config.Hosts = netns.MemberHosts)", n.Name, n.Host)
		}
		seen[n.Host] = n.Name
	}
	return nil
}

func joinNames(ns []*cluster.Node) string { return strings.Join(cluster.Names(ns), ",") }
