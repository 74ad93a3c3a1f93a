package eureka

import (
	"context"

	"sdchaos/history"
)

// PartitionEurekaClients cuts a group of clients off every Eureka server
// while the servers keep replicating to each other: their requests hang
// until the connect timeout, as with packets dropped by a firewall. It is a
// model-level switch in the clients' transport (eureka.Link) rather than a
// TCP proxy, so that the group's scheduler on the same host is not cut off.
// Heal reconnects them.
type PartitionEurekaClients struct {
	Link Switch
	// Who names the group in tables ("50 workers").
	Who string
	// Cluster names the group's cluster when the world has several (the
	// event's Cluster); empty when it has one.
	Cluster string
}

// Describe returns the partition-eureka-clients event on the group
// ("partition 'on' workers | eureka servers").
func (p PartitionEurekaClients) Describe() history.Event {
	return history.Event{Kind: EventPartitionClients, Targets: []string{p.Who}, Label: "partition " + p.Who + " | eureka servers",
		Cluster: p.Cluster}
}

// Inject cuts the link.
func (p PartitionEurekaClients) Inject(context.Context) error {
	p.Link.Block()
	return nil
}

// Heal restores the link.
func (p PartitionEurekaClients) Heal(context.Context) error {
	p.Link.Unblock()
	return nil
}
