package zookeeper

import (
	"context"
	"fmt"
	"strings"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/linkproxy"
)

// BlackholeZooKeeperClients holds back every byte on the links between the
// run's clients (registrants, policy callers, Java callers) and the
// ZooKeeper members: Links[i] is the proxy in front of member Members[i]'s
// client port (zookeeper.Ensemble.ClientLinks). Connections stay open and
// new ones are accepted but silent, as under total packet loss; the
// members and their peer traffic are untouched.
type BlackholeZooKeeperClients struct {
	Members []string
	Links   []*linkproxy.Proxy
}

// Describe returns the blackhole event on the members
// ("blackhole every client link to zookeeper zk1,zk2,zk3").
func (b BlackholeZooKeeperClients) Describe() history.Event {
	return history.Event{Kind: history.BlackholeLinks, Targets: b.Members,
		Label: "blackhole every client link to zookeeper " + strings.Join(b.Members, ",")}
}

// Inject blackholes every link.
func (b BlackholeZooKeeperClients) Inject(context.Context) error {
	if len(b.Links) == 0 {
		return fmt.Errorf("no client link to blackhole (the ensemble was started without client links)")
	}
	return fault.EachProxy(b.Links, (*linkproxy.Proxy).Blackhole)
}

// Heal lets bytes pass again.
func (b BlackholeZooKeeperClients) Heal(context.Context) error { return fault.HealLinks(b.Links) }
