package eureka

import (
	"context"
	"strings"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/linkproxy"
)

// BlackholeEurekaClients holds back every byte on the links from every
// client (the instances' renewals, the callers' and the Java client's
// fetches) to every Eureka server: each server's client proxy blackholes,
// its peers' replication (which does not pass the client proxies) goes
// on. Heal lets the bytes pass again.
type BlackholeEurekaClients struct {
	// Servers name the servers whose client links are held.
	Servers []string
	// Proxies are their client proxies.
	Proxies []*linkproxy.Proxy
}

// Describe returns the blackhole event on the servers ("blackhole client
// links to eureka s1,s2,s3").
func (b BlackholeEurekaClients) Describe() history.Event {
	return history.Event{Kind: history.BlackholeLinks, Targets: b.Servers,
		Label: "blackhole client links to eureka " + strings.Join(b.Servers, ",")}
}

// Inject blackholes every client proxy.
func (b BlackholeEurekaClients) Inject(context.Context) error {
	return fault.EachProxy(b.Proxies, (*linkproxy.Proxy).Blackhole)
}

// Heal lets bytes pass again.
func (b BlackholeEurekaClients) Heal(context.Context) error { return fault.HealLinks(b.Proxies) }
