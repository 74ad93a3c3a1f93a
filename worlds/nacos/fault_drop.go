package nacos

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
)

// DropClients is a fault value: every packet between the clients and the client ports (HTTP and
// SDK gRPC) of Members dropped, in the run's private network namespace (the members on
// 198.18.0.N, ClusterSpec.Hosts = netns.MemberHosts), as on a link that loses everything: TCP
// retransmits with growing timeouts. The members' own traffic (member reports and Distro on the
// cluster gRPC port, JRaft) passes, so a member stays connected to its peers. With Source valid
// only the clients that reach the members from it are cut (the world's links, NewClusterLinkFrom),
// and the harness's own reads of the members pass.
type DropClients struct {
	Filter  *netns.Filter
	Members []*Member
	Source  netip.Addr
	fault.PacketRules
}

// Describe returns the packet-drop-clients event on the members ("drop 100 % of the packets
// between the clients and nacos-1,nacos-2,nacos-3").
func (d *DropClients) Describe() history.Event {
	names := make([]string, len(d.Members))
	for i, m := range d.Members {
		names[i] = m.Name()
	}
	return history.Event{Kind: history.PacketDropClients, Targets: names,
		Label: "drop 100 % of the packets between the clients and " + strings.Join(names, ",")}
}

// Rules returns a rule per member, client port and direction (ClientTrafficFrom).
func (d *DropClients) Rules() ([]netns.Rule, error) {
	var rules []netns.Rule
	for _, m := range d.Members {
		ms, err := m.ClientTrafficFrom(d.Source)
		if err != nil {
			return nil, err
		}
		for _, x := range ms {
			rules = append(rules, netns.Rule{Match: x, Loss: 1, Action: netns.Drop})
		}
	}
	return rules, nil
}

// Inject installs the rules in the filter.
func (d *DropClients) Inject(context.Context) error {
	label := d.Describe().Label
	rules, err := d.Rules()
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	return d.Apply(d.Filter, label, rules)
}

// Heal reads the rules' counters and removes them; rules that selected no packet are an error
// (every client's health check crosses them every 5 s: the fault did not take effect).
func (d *DropClients) Heal(context.Context) error { return d.Remove(d.Describe().Label, true) }
